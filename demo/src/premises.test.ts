import type { EventDetail } from "@quiesce/cli";
import { describe, expect, it } from "vitest";
import { expectationProblems, premiseNotMet, unmetPremise } from "./premises";
import type { ScenarioStep } from "./scenario";
import { renderProblems, renderSummary, summarize } from "./summary";

const drain = (status: "running" | "succeeded") => ({
  status,
  attempt: 1,
  startedAt: "2026-01-01T00:00:00Z",
});
/** The status API's view of "relays lost" with db-0 drained and db-1 in the state given. */
const detail = (db1: "running" | "succeeded" | null) =>
  ({
    resources: ["db-0", "db-1"],
    readiness: [
      { vm: "db-0", drain: drain("succeeded") },
      { vm: "db-1", drain: db1 ? drain(db1) : null },
    ],
  }) as unknown as EventDetail;

const stop: ScenarioStep = {
  at: 690,
  action: "stopRelay",
  vm: "db-0",
  when: { drained: "relays lost" },
};

describe("demo step premises", () => {
  it("holds a relay's stop until every VM the event names reported its drain", async () => {
    const running = await unmetPremise(stop, async () => detail("running"));
    expect(running).toEqual({
      premise: 'every VM "relays lost" names reported its drain',
      seen: "db-1: running",
    });
    expect(await unmetPremise(stop, async () => detail(null))).toMatchObject({
      seen: "db-1: not started",
    });
    expect(await unmetPremise(stop, async () => detail("succeeded"))).toBeNull();
  });

  it("holds a step on an event until Quiesce has seen it", async () => {
    const release: ScenarioStep = { at: 700, action: "release", name: "relays lost" };
    expect(await unmetPremise(release, async () => null)).toEqual({
      premise: 'Quiesce has seen "relays lost"',
      seen: "not reported by any relay yet",
    });
    expect(await unmetPremise(release, async () => detail(null))).toBeNull();
  });

  it("reports a premise not met against the story, and the summary marks it not as told", () => {
    const p = premiseNotMet(stop, { premise: "every VM drained", seen: "db-1: running" }, 30);
    expect(p).toEqual({
      event: "relays lost",
      problem:
        "premise not met: every VM drained (after 30 s: db-1: running); stopRelay db-0 at 690 s played anyway",
    });
    const row = summarize("relays lost", undefined, null, [p.problem]);
    expect(renderSummary([row]).split("\n")[1]).toContain("NOT AS TOLD");
    expect(renderProblems([row], [])).toEqual([
      "Not as told (1): the summary above does not show the story as written.",
      `  relays lost: ${p.problem}`,
    ]);
    expect(renderProblems([summarize("fine", undefined, null)], [])).toEqual([]);
  });

  it("reports a story that did not come to what it expects", () => {
    const steps: ScenarioStep[] = [
      {
        at: 0,
        action: "schedule",
        name: "relays lost",
        event: { eventType: "Freeze", resources: ["db-0"] } as never,
        expect: { approvedBy: "control-plane" },
      },
    ];
    expect(expectationProblems(steps, () => "db-1")).toEqual([
      { event: "relays lost", problem: "expected approval by control-plane, approved by db-1" },
    ]);
    expect(expectationProblems(steps, () => "control-plane")).toEqual([]);
  });
});
