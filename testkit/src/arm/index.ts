import {
  armToken,
  type FabricSimulator,
  ManualClock,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { type ArmClient, createArmClient } from "@quiesce/functions";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** How a test file's simulator is made. */
export interface SimOptions {
  /** The simulator's clock, for a file that moves time itself; a fresh ManualClock otherwise. */
  readonly clock?: ManualClock;
}

/** Read these inside tests: they are set in beforeAll. */
export interface SimContext {
  readonly sim: FabricSimulator;
  /** A token of the simulator's system-assigned identity, as its ARM accepts. */
  readonly token: string;
}

export interface ArmContext extends SimContext {
  readonly arm: ArmClient;
}

/**
 * One fabric simulator (demo topology, a manual clock) for a test file or describe block, with a
 * token of its system-assigned identity; reset before each test.
 */
export function useContractSim(opts: SimOptions = {}): SimContext {
  const ctx = {} as { sim: FabricSimulator; token: string };
  beforeAll(async () => {
    ctx.sim = await startFabricSimulator({ clock: opts.clock ?? new ManualClock() });
    ctx.token = await armToken(ctx.sim.identity);
  });
  afterAll(() => ctx.sim?.stop());
  beforeEach(() => ctx.sim.reset());
  return ctx;
}

/**
 * useContractSim with the product's ARM client on the simulator's ARM: one attempt per call, so a
 * refusal is read as it comes rather than retried. Its afterAll runs before the simulator's (vitest
 * runs after-hooks last registered first), so the client closes while its server is still up.
 */
export function useContractArm(opts: SimOptions = {}): ArmContext {
  const ctx = useContractSim(opts) as { sim: FabricSimulator; token: string; arm: ArmClient };
  beforeAll(() => {
    ctx.arm = createArmClient({
      endpoint: ctx.sim.armUrl,
      credential: { getToken: async () => ({ token: ctx.token }) },
      maxAttempts: 1,
    });
  });
  afterAll(() => ctx.arm?.close());
  return ctx;
}
