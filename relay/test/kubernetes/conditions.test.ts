import { dict } from "@quiesce/protocol";
import type { HookRun } from "@quiesce/protocol/relay";
import { describe, expect, it } from "vitest";
import { emptyState, type RelayState, type TrackedEvent } from "../../src/decisions/state";
import {
  conditionsPatch,
  type NodeCondition,
  PREFIX,
  REASONS,
  wantedConditions,
} from "../../src/kubernetes/conditions";

/**
 * The lifecycle conditions' pure decisions: which of KEP-5683's four the relay's state calls
 * for through an event's life, and the status patch under the ownership rule (ours: one of our
 * reasons and our message prefix; another writer's True is never changed, and a False we never
 * wrote is never added).
 */

const NOT_BEFORE = "Mon, 19 Sep 2016 18:29:47 GMT";
const T0 = Date.parse("2026-11-27T10:00:00Z");
const run = (status: HookRun["status"]): HookRun => ({
  status,
  attempt: 1,
  startedAt: "2026-11-27T10:00:00.000Z",
});
function stateWith(...events: Partial<TrackedEvent>[]): RelayState {
  const s = emptyState();
  const all = dict<TrackedEvent>();
  events.forEach((e, i) => {
    const id = e.eventId ?? `E${i + 1}`;
    all[id.toLowerCase()] = {
      eventId: id,
      firstSeenAt: `2026-11-27T10:00:0${i}.000Z`,
      ...e,
      event: {
        EventId: id,
        EventType: "Reboot",
        ResourceType: "VirtualMachine",
        Resources: ["vm-0"],
        EventStatus: "Scheduled",
        NotBefore: NOT_BEFORE,
        ...e.event,
      },
    };
  });
  return { ...s, events: all };
}
const show = (s: RelayState) =>
  Object.fromEntries(wantedConditions(s).map((c) => [c.type, `${c.status} ${c.reason}`]));

describe("which conditions an event's life calls for", () => {
  it("never calls a Spot rebalance recommendation planned maintenance, though its gentle drain shows", () => {
    const advisory = { EventType: "SpotRebalanceRecommendation" } as TrackedEvent["event"];
    expect(show(stateWith({ event: advisory, drain: run("running") }))).toEqual({
      MaintenancePlanned: "False ScheduledEventEnded",
      DrainInProgress: "True ScheduledEvent",
      Drained: "False ScheduledEventEnded",
      MaintenanceInProgress: "False ScheduledEventEnded",
    });
    // A Preempt beside it is planned maintenance again.
    const preempt = { eventId: "P", event: { EventType: "Preempt" } as TrackedEvent["event"] };
    expect(show(stateWith({ event: advisory }, preempt)).MaintenancePlanned).toBe(
      "True ScheduledEvent",
    );
  });

  it("goes Scheduled → drain → drained → Started → gone, each step its own set", () => {
    expect(show(stateWith({}))).toEqual({
      MaintenancePlanned: "True ScheduledEvent",
      DrainInProgress: "False ScheduledEventEnded",
      Drained: "False ScheduledEventEnded",
      MaintenanceInProgress: "False ScheduledEventEnded",
    });
    expect(show(stateWith({ drain: run("running") }))).toMatchObject({
      MaintenancePlanned: "True ScheduledEvent",
      DrainInProgress: "True ScheduledEvent",
    });
    expect(show(stateWith({ drain: run("succeeded") }))).toEqual({
      MaintenancePlanned: "True ScheduledEvent",
      DrainInProgress: "False DrainCompleted",
      Drained: "True DrainCompleted",
      MaintenanceInProgress: "False ScheduledEventEnded",
    });
    const started = { EventStatus: "Started", NotBefore: "" } as TrackedEvent["event"];
    expect(show(stateWith({ drain: run("succeeded"), event: started }))).toEqual({
      MaintenancePlanned: "False MaintenanceStarted",
      DrainInProgress: "False DrainCompleted",
      Drained: "True DrainCompleted",
      MaintenanceInProgress: "True ScheduledEvent",
    });
    const gone = { drain: run("succeeded"), goneAt: "2026-11-27T10:30:00.000Z" };
    for (const s of [stateWith(gone), stateWith({ ...gone, recover: run("running") })])
      expect(Object.values(show(s))).toEqual(Array(4).fill("False ScheduledEventEnded"));
    // The coordinator ended it early: over too.
    expect(show(stateWith({ drain: run("succeeded"), recoverRequested: true })).Drained).toBe(
      "False ScheduledEventEnded",
    );
  });

  it("names the event type, EventId and NotBefore in the message, readable in kubectl describe", () => {
    const planned = wantedConditions(stateWith({ eventId: "A-1" }))[0];
    expect(planned?.message).toBe(
      `${PREFIX}Azure scheduled event Reboot (EventId A-1, NotBefore ${NOT_BEFORE}) is Scheduled`,
    );
    const two = wantedConditions(stateWith({ eventId: "A-1" }, { eventId: "B-2" }))[0];
    expect(two?.message).toMatch(/\(EventId A-1, NotBefore [^)]+\) and 1 more is Scheduled$/);
  });

  it("says a failed drain: not drained, not draining", () => {
    expect(show(stateWith({ drain: run("failed") }))).toMatchObject({
      DrainInProgress: "False DrainFailed",
      Drained: "False DrainFailed",
    });
  });
});

const ours = (type: string, status: string, reason: string, extra = {}): NodeCondition => ({
  type,
  status,
  reason,
  message: `${PREFIX}x`,
  lastTransitionTime: "2026-11-27T09:00:00Z",
  ...extra,
});

describe("the status patch", () => {
  const scheduled = wantedConditions(stateWith({ drain: run("running") }));

  it("adds only the True ones to a node without conditions, stamped now, with the resourceVersion", () => {
    const p = conditionsPatch([], scheduled, "42", T0);
    expect(p?.metadata).toEqual({ resourceVersion: "42" });
    expect(p?.status.conditions.map((c) => [c.type, c.status])).toEqual([
      ["MaintenancePlanned", "True"],
      ["DrainInProgress", "True"],
    ]);
    for (const c of p?.status.conditions ?? [])
      expect([c.lastHeartbeatTime, c.lastTransitionTime]).toEqual([
        "2026-11-27T10:00:00Z",
        "2026-11-27T10:00:00Z",
      ]);
  });

  it("moves lastTransitionTime only when the status changes, and is null when all is as wanted", () => {
    const now = [
      ours("MaintenancePlanned", "True", REASONS.scheduled),
      ours("DrainInProgress", "True", REASONS.scheduled),
    ];
    const drained = wantedConditions(stateWith({ drain: run("succeeded") }));
    const p = conditionsPatch(now, drained, undefined, T0);
    const byType = Object.fromEntries((p?.status.conditions ?? []).map((c) => [c.type, c]));
    expect(Object.keys(byType)).toEqual(["MaintenancePlanned", "DrainInProgress", "Drained"]);
    // Planned stays True (its message names the event now): the transition time is kept.
    expect(byType.MaintenancePlanned?.lastTransitionTime).toBe("2026-11-27T09:00:00Z");
    expect(byType.DrainInProgress?.lastTransitionTime).toBe("2026-11-27T10:00:00Z");
    expect(byType.DrainInProgress?.lastHeartbeatTime).toBe("2026-11-27T10:00:00Z");
    const applied = (p?.status.conditions ?? []).map((c) => ({ ...c }));
    expect(conditionsPatch(applied, drained, undefined, T0 + 60_000)).toBeNull();
  });

  it("leaves another writer's True alone and clears none of theirs; takes over a False", () => {
    const foreign: NodeCondition[] = [
      { type: "MaintenancePlanned", status: "True", reason: "AdminRequested", message: "by hand" },
      // Our reason word, not our message: still theirs.
      { type: "Drained", status: "True", reason: "DrainCompleted", message: "kubectl drain" },
      { type: "DrainInProgress", status: "False", reason: "AdminRequested" },
      { type: "Ready", status: "True", reason: "KubeletReady" },
    ];
    const p = conditionsPatch(foreign, scheduled, undefined, T0);
    expect(p?.status.conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      "DrainInProgress=True",
    ]);
    const gone = wantedConditions(stateWith({ goneAt: "2026-11-27T10:30:00.000Z" }));
    expect(conditionsPatch(foreign, gone, undefined, T0)).toBeNull();
  });

  it("sets ours False when the event is gone, and never adds a False", () => {
    const gone = wantedConditions(stateWith({ goneAt: "2026-11-27T10:30:00.000Z" }));
    expect(conditionsPatch([], gone, undefined, T0)).toBeNull();
    const p = conditionsPatch(
      [
        ours("Drained", "True", REASONS.drainCompleted),
        ours("DrainInProgress", "False", "DrainCompleted"),
      ],
      gone,
      undefined,
      T0,
    );
    expect(p?.status.conditions.map((c) => `${c.type}=${c.status} ${c.reason}`)).toEqual([
      "Drained=False ScheduledEventEnded",
    ]);
  });
});
