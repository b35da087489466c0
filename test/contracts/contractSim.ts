import {
  armToken,
  type FabricSimulator,
  ManualClock,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type ArmClient, createArmClient } from "../../functions/src/arm/index";

/**
 * One fabric simulator (demo topology, manual clock) for a contract test file, with a token of its
 * system-assigned identity; reset before each test. Read `sim` and `token` inside tests.
 */
export function useContractSim(): { readonly sim: FabricSimulator; readonly token: string } {
  const ctx = {} as { sim: FabricSimulator; token: string };
  beforeAll(async () => {
    ctx.sim = await startFabricSimulator({ clock: new ManualClock() });
    ctx.token = await armToken(ctx.sim.identity);
  });
  afterAll(() => ctx.sim?.stop());
  beforeEach(() => ctx.sim.reset());
  return ctx;
}

/**
 * useContractSim with the product's ARM client on the simulator's ARM (one attempt per call, so a
 * refusal is read as it comes): the contract files that hold the simulator's ARM to the fixtures.
 */
export function useContractArm(): {
  readonly sim: FabricSimulator;
  readonly token: string;
  readonly arm: ArmClient;
} {
  const ctx = {} as { sim: FabricSimulator; token: string; arm: ArmClient };
  beforeAll(async () => {
    ctx.sim = await startFabricSimulator({ clock: new ManualClock() });
    ctx.token = await armToken(ctx.sim.identity);
    ctx.arm = createArmClient({
      endpoint: ctx.sim.armUrl,
      credential: { getToken: async () => ({ token: ctx.token }) },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    await ctx.arm?.close();
    await ctx.sim?.stop();
  });
  beforeEach(() => ctx.sim.reset());
  return ctx;
}
