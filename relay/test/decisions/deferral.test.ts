import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { DeferDirective } from "@quiesce/protocol/relay";
import { describe, expect, it } from "vitest";
import {
  ANSWER_WAIT_MS,
  applyDeferrals,
  holdEnded,
  reportedKeys,
} from "../../src/decisions/deferral";
import { dueHooks, hookStarted, observeDocument } from "../../src/decisions/reconcile";
import { emptyState, type RelayState } from "../../src/decisions/state";

/**
 * Maintenance windows in the relay's decisions: a defer directive holds a drain not yet started,
 * on the relay's own clock (so a silent coordinator never holds it for good); a later answer
 * lifts it; in a cluster with windows a new event's drain first waits (bounded) for the answer
 * to its report; without windows nothing waits at all.
 */

const T0 = Date.parse("2026-01-01T00:00:00Z");
const ev = (id: string): ScheduledEvent => ({
  EventId: id,
  EventType: "Freeze",
  ResourceType: "VirtualMachine",
  Resources: ["vm-0"],
  EventStatus: "Scheduled",
  NotBefore: "Thu, 01 Jan 2026 00:15:00 GMT",
  DurationInSeconds: 5,
});
const doc = (...events: ScheduledEvent[]) => ({ DocumentIncarnation: 1, Events: events });
const defer = (eventIds: string[], untilSeconds: number): DeferDirective => ({
  kind: "defer",
  eventIds,
  untilSeconds,
});
const drains = (s: RelayState, now: number) =>
  dueHooks(s, "hooks", now)
    .filter((a) => a.kind === "drain")
    .map((a) => a.key);

describe("relay: maintenance-window holds", () => {
  it("without windows a new event drains at once, as before", () => {
    const s = observeDocument(emptyState(), doc(ev("E1")), "vm-0", T0);
    expect(drains(s, T0)).toEqual(["e1"]);
  });

  it("holds the drain a defer directive names until it runs out on the relay's clock", () => {
    const seen = observeDocument(emptyState(), doc(ev("E1")), "vm-0", T0);
    const s = applyDeferrals(seen, reportedKeys(doc(ev("E1"))), [defer(["E1"], 120)], T0 + 500);
    expect(drains(s, T0 + 1_000)).toEqual([]);
    expect(holdEnded(s, T0 + 60_000)).toBe(false);
    // The coordinator went silent: the hold runs out all the same, and the drain starts.
    expect(holdEnded(s, T0 + 120_500)).toBe(true);
    expect(drains(s, T0 + 120_500)).toEqual(["e1"]);
    // The same hold repeated by the next answer, a second later, changes nothing (no rewrite).
    expect(applyDeferrals(s, reportedKeys(doc(ev("E1"))), [defer(["E1"], 119)], T0 + 1_500)).toBe(
      s,
    );
  });

  it("a later answer that no longer names the event lifts the hold; one about an older document does not", () => {
    const seen = observeDocument(emptyState(), doc(ev("E1")), "vm-0", T0);
    const held = applyDeferrals(seen, reportedKeys(doc(ev("E1"))), [defer(["E1"], 600)], T0);
    // An answer to a report built before E1 was seen says nothing of it.
    expect(
      drains(applyDeferrals(held, reportedKeys(doc()), [defer([], 0)], T0 + 1), T0 + 1),
    ).toEqual([]);
    const lifted = applyDeferrals(held, reportedKeys(doc(ev("E1"))), [defer([], 0)], T0 + 2);
    expect(drains(lifted, T0 + 2)).toEqual(["e1"]);
  });

  it("in a cluster with windows, a new event waits for the answer to its report, at most ANSWER_WAIT_MS", () => {
    const windows = applyDeferrals(emptyState(), new Set(), [defer([], 0)], T0);
    expect(windows.windows).toBe(true);
    const seen = observeDocument(windows, doc(ev("E1")), "vm-0", T0 + 10);
    expect(drains(seen, T0 + 20)).toEqual([]);
    // The answer came and holds nothing: drain now.
    const answered = applyDeferrals(seen, reportedKeys(doc(ev("E1"))), [defer([], 0)], T0 + 300);
    expect(drains(answered, T0 + 300)).toEqual(["e1"]);
    // No answer: the wait is bounded.
    expect(drains(seen, T0 + 10 + ANSWER_WAIT_MS)).toEqual(["e1"]);
    // A coordinator that dropped its windows (no defer directive) turns the first wait off.
    const none = applyDeferrals(answered, reportedKeys(doc(ev("E1"))), [], T0 + 400);
    expect(none.windows).toBe(false);
    expect(
      drains(observeDocument(none, doc(ev("E1"), ev("E2")), "vm-0", T0 + 500), T0 + 500),
    ).toEqual(["e1", "e2"]);
  });

  it("a new event of an exempt type (a Preempt) drains at once, without waiting for an answer", () => {
    const windows = applyDeferrals(
      emptyState(),
      new Set(),
      [{ ...defer([], 0), exemptEventTypes: ["Preempt", "Terminate"] }],
      T0,
    );
    const preempt = { ...ev("P1"), EventType: "Preempt" };
    const seen = observeDocument(windows, doc(ev("E1"), preempt), "vm-0", T0 + 10);
    expect(drains(seen, T0 + 20)).toEqual(["p1"]);
  });

  it("never holds back a drain that has started", () => {
    const seen = observeDocument(emptyState(), doc(ev("E1")), "vm-0", T0);
    const running = hookStarted(seen, { kind: "drain", key: "e1" }, T0);
    const rec = running.events.e1;
    if (!rec?.drain) throw new Error("drain not started");
    const interrupted: RelayState = {
      ...running,
      events: { ...running.events, e1: { ...rec, drain: { ...rec.drain, status: "interrupted" } } },
    };
    const held = applyDeferrals(interrupted, reportedKeys(doc(ev("E1"))), [defer(["E1"], 600)], T0);
    expect(drains(held, T0 + 1)).toEqual(["e1"]);
  });
});
