import { afterAll, beforeAll, beforeEach } from "vitest";
import { armToken } from "../arm/probe";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import type { TopologyInput } from "../topology/topology";

/**
 * The set-up the loopback ARM's tests share: one simulator on a manual clock for the file (the
 * demo topology unless given one), a token of its system-assigned identity, and a reset before
 * each test. Read `sim` and `token` inside tests (they are set once the file's beforeAll ran).
 */
export function useArmSim(topology?: TopologyInput): {
  readonly sim: FabricSimulator;
  readonly token: string;
} {
  const ctx = {} as { sim: FabricSimulator; token: string };
  beforeAll(async () => {
    ctx.sim = await startFabricSimulator({
      clock: new ManualClock(),
      ...(topology ? { topology } : {}),
    });
    ctx.token = await armToken(ctx.sim.identity);
  });
  afterAll(() => ctx.sim?.stop());
  beforeEach(() => ctx.sim.reset());
  return ctx;
}
