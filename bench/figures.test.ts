import { describe, expect, it } from "vitest";
import type { BenchResults } from "./benchResults";
import { type Figure, type MachineProbe, mergeRecords, notMeasured, runFigures } from "./figures";
import { check, PremiseNotMet, premise, settleRounds } from "./premise";
import { renderMarkdown } from "./render";
import { LatestResults } from "./resultsFile";

/** Two cores idle `idlePerSecondMs` of every second; the clock moves 5 s at each idle read. */
function fakeMachine(idlePerSecondMs = 500): MachineProbe {
  let now = 0;
  return {
    now: () => now,
    idle: () => {
      const r = { cores: 2, idleMs: (now / 1000) * idlePerSecondMs };
      now += 5_000;
      return r;
    },
    loadAverage: () => 3,
  };
}

type S = { a?: number; b?: number; c?: number };

describe("bench figures: one figure failing does not throw the run away", () => {
  it("records a figure whose premise is not met as failed, with why, and still measures the others", async () => {
    const figures: Figure<S>[] = [
      { id: "a", title: "(a)", measure: async () => ({ a: 1 }) },
      {
        id: "b",
        title: "(b)",
        measure: async () => {
          throw new PremiseNotMet("every relay of avset-x reported its drain", "x-1 draining");
        },
      },
      { id: "c", title: "(c)", measure: async () => ({ c: 3 }) },
    ];
    const { measured, records } = await runFigures(figures, () => {}, fakeMachine());
    expect(measured).toEqual({ a: 1, c: 3 });
    expect(records.map((r) => [r.id, r.status])).toEqual([
      ["a", "measured"],
      ["b", "failed"],
      ["c", "measured"],
    ]);
    expect(records[1]?.problems).toEqual([
      "premise not met: every relay of avset-x reported its drain (x-1 draining)",
    ]);
    expect(notMeasured(records).map((r) => r.id)).toEqual(["b"]);
  });

  it("records any other error as a failure, and lost rounds as a partial figure", async () => {
    const figures: Figure<S>[] = [
      {
        id: "a",
        title: "(a)",
        measure: async () => {
          throw new Error("approved by nr0-1, not the control plane");
        },
      },
      {
        id: "b",
        title: "(b)",
        measure: async () => ({ b: 2 }),
        problems: (m) => (m.b === 2 ? ["round 3: premise not met: x (y)"] : []),
      },
    ];
    const { measured, records } = await runFigures(figures, () => {}, fakeMachine());
    expect(measured).toEqual({ b: 2 });
    expect(records[0]?.problems).toEqual(["failed: approved by nr0-1, not the control plane"]);
    expect(records[1]?.status).toBe("partial");
  });

  it("gives each figure the machine's idle share over its own run", async () => {
    const { records } = await runFigures(
      [{ id: "a", title: "(a)", measure: async () => ({ a: 1 }) }],
      () => {},
      fakeMachine(500),
    );
    expect(records[0]?.seconds).toBe(5);
    // 500 ms idle per second over 2 cores: a quarter of their time.
    expect(records[0]?.machine).toEqual({ cores: 2, idleShare: 0.25, loadAverage: 3 });
  });

  it("a --only run replaces its own figure's record and keeps the earlier run's others", () => {
    const r = (id: string, status: "measured" | "failed") => ({
      id,
      title: id,
      status,
      seconds: 1,
      machine: { cores: 2, idleShare: 0.5 },
      problems: [],
      date: "2026-01-01T00:00:00.000Z",
    });
    const merged = mergeRecords([r("a", "measured"), r("b", "failed")], [r("b", "measured")]);
    expect(merged.map((x) => [x.id, x.status])).toEqual([
      ["a", "measured"],
      ["b", "measured"],
    ]);
  });
});

describe("bench premises", () => {
  it("a premise that never holds is PremiseNotMet, saying what was seen instead", async () => {
    const e = await premise(
      "the relays gone",
      () => {
        throw new Error("db-0 still live");
      },
      30,
      5,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PremiseNotMet);
    expect((e as Error).message).toBe(
      "premise not met: the relays gone (after 30 ms: db-0 still live)",
    );
    expect(() => check("held", false, "Approving")).toThrow("premise not met: held (Approving)");
  });

  it("rounds run together keep their samples when one round's premise fails", async () => {
    const { samples, failed } = await settleRounds([
      { round: "r1", run: Promise.resolve(1) },
      { round: "r2", run: Promise.reject(new PremiseNotMet("drained", "timed out")) },
      { round: "r3", run: Promise.resolve(3) },
    ]);
    expect(samples).toEqual([1, 3]);
    expect(failed).toEqual([{ round: "r2", problem: "premise not met: drained (timed out)" }]);
  });
});

describe("bench results with a failed figure", () => {
  const results: BenchResults = {
    date: "2026-01-01T00:00:00.000Z",
    machine: { cpu: "cpu", cores: 2, node: "v20", platform: "linux-x64" },
    durationSeconds: 60,
    figures: [
      {
        id: "control-plane",
        title: "(j) control-plane approval",
        status: "failed",
        seconds: 200,
        machine: { cores: 2, idleShare: 0.04, loadAverage: 5.5 },
        problems: ["premise not met: every relay of avset-nr0 reported its drain (nr0-1 running)"],
        date: "2026-01-01T00:00:00.000Z",
      },
    ],
    relayIdle: null,
    statusScale: null,
  };

  it("is written and read back without the failed figure's section", () => {
    const parsed = LatestResults.safeParse(JSON.parse(JSON.stringify(results)));
    expect(parsed.error).toBeUndefined();
    expect(parsed.data?.controlPlane).toBeUndefined();
    expect(parsed.data?.figures?.[0]?.status).toBe("failed");
  });

  it("says in latest.md which figure failed, why, and how idle the machine was", () => {
    const md = renderMarkdown(results);
    expect(md).toContain("**1 of 1 figures did not measure all they should**");
    expect(md).toContain(
      "| (j) control-plane approval | **failed**: premise not met: every relay of avset-nr0 reported its drain (nr0-1 running) | 200 s | 4 % of 2 cores idle, load average 5.5 |",
    );
    expect(md).not.toContain("## (j)");
  });
});
