import {
  armToken,
  type FabricSimulator,
  ManualClock,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { afterAll, beforeAll, beforeEach } from "vitest";

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
