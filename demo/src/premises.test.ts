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

  it("keeps relays away until the coordinator approved the event, and gives up at once when it went on without", async () => {
    const back: ScenarioStep = {
      at: 1350,
      action: "startRelay",
      vm: "db-0",
      when: { approved: "relays lost" },
    };
    const at = (phase: string, approvedAt: string | null, waitingFor: string | null = null) =>
      ({ phase, waitingFor, approval: { approvedAt } }) as unknown as EventDetail;
    expect(await unmetPremise(back, async () => null)).toEqual({
      premise: 'Quiesce approved "relays lost"',
      seen: "Quiesce has not seen the event",
    });
    expect(
      await unmetPremise(back, async () =>
        at("Ready", null, "the control plane at the next sweep"),
      ),
    ).toEqual({
      premise: 'Quiesce approved "relays lost"',
      seen: "Ready, waiting for the control plane at the next sweep",
    });
    expect(await unmetPremise(back, async () => at("Started", "2026-01-01T00:00:00Z"))).toBeNull();
    // Azure started it at NotBefore, unapproved: the premise can no longer come.
    expect(await unmetPremise(back, async () => at("Started", null))).toMatchObject({
      final: true,
    });
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
    const row = summarize("relays lost", undefined, null, (t) => t, [p.problem]);
    expect(renderSummary([row]).split("\n")[1]).toContain("NOT AS TOLD");
    expect(renderProblems([row], [])).toEqual([
      "Not as told (1): the summary above does not show the story as written.",
      `  relays lost: ${p.problem}`,
    ]);
    expect(renderProblems([summarize("fine", undefined, null, (t) => t)], [])).toEqual([]);
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
