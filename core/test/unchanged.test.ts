import { drained, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { changesNothing } from "../src";
import { Sim } from "./fixtures";

/**
 * `changesNothing`: whether a decision leaves every stored row as it was. The shell answers a
 * report decided on copies of other VMs' rows only then (functions/src/pipeline/report.ts), so it
 * must say "changes" for anything the store would write.
 */
describe("a decision that changes nothing", () => {
  const ev = scheduled("E1", ["web-0", "web-1"]);

  it("is a repeated heartbeat inside the liveness granularity", () => {
    const sim = new Sim();
    sim.send(report("web-0", 1, [ev]));
    sim.send(report("web-1", 1, [ev]));
    const before = sim.state;
    expect(changesNothing(before, sim.send(report("web-1", 1, [ev])))).toBe(true);
  });

  it("is not a drain that finished, nor the election it leads to, nor a newer document", () => {
    const sim = new Sim();
    sim.send(report("web-0", 1, [ev], { hooks: [drained("E1")] }));
    sim.send(report("web-1", 1, [ev]));
    const before = sim.state;
    const last = sim.send(report("web-1", 1, [ev], { hooks: [drained("E1")] }));
    expect(sim.event("E1").lease).toMatchObject({ holder: "web-1", grantedAt: sim.now });
    expect(changesNothing(before, last)).toBe(false);
    const after = sim.state;
    expect(changesNothing(after, sim.send(report("web-0", 2, [])))).toBe(false);
  });

  it("is not a heartbeat past the liveness granularity (lastSeenAt is rewritten)", () => {
    const sim = new Sim();
    sim.send(report("web-0", 1, [ev]));
    const before = sim.state;
    expect(changesNothing(before, sim.send(report("web-0", 1, [ev]), 60_000))).toBe(false);
  });
});
