import type { ScheduledEvent, ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import {
  dueHooks,
  FORGET_AFTER_MS,
  hookFinished,
  hookStarted,
  markInterrupted,
  observeDocument,
  prune,
  recordApprovals,
  reportedHooks,
  requestRecover,
} from "../../src/decisions/reconcile";
import { emptyState, type RelayState } from "../../src/decisions/state";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const ev = (
  id: string,
  resources: string[],
  status: "Scheduled" | "Started" = "Scheduled",
): ScheduledEvent => ({
  EventId: id,
  EventType: "Reboot",
  ResourceType: "VirtualMachine",
  Resources: resources,
  EventStatus: status,
  NotBefore: status === "Scheduled" ? "Mon, 01 Jan 2026 00:15:00 GMT" : "",
});
const doc = (n: number, ...events: ScheduledEvent[]): ScheduledEventsDocument => ({
  DocumentIncarnation: n,
  Events: events,
});

function runAll(state: RelayState, ok = true, now = T0): RelayState {
  let s = state;
  for (const a of dueHooks(s))
    s = hookFinished(hookStarted(s, a, now), a, { ok, detail: ok ? "exit 0" : "exit 1" }, now);
  return s;
}

describe("relay decisions", () => {
  it("drains only for events that name this VM, whatever the case of the name", () => {
    const s = observeDocument(
      emptyState(),
      doc(2, ev("A", ["VM-0", "vm-1"]), ev("B", ["vm-1"])),
      "vm-0",
      T0,
    );
    expect(dueHooks(s)).toEqual([{ kind: "drain", key: "a" }]);
  });

  it("drains once per event even when the event id changes case between documents", () => {
    let s = observeDocument(emptyState(), doc(2, ev("abc", ["vm-0"])), "vm-0", T0);
    s = runAll(s);
    s = observeDocument(s, doc(3, ev("ABC", ["vm-0"], "Started")), "vm-0", T0 + 1000);
    expect(dueHooks(s)).toEqual([]);
    expect(reportedHooks(s)[0]?.drain?.attempt).toBe(1);
  });

  it("never starts a hook that is already running", () => {
    let s = observeDocument(emptyState(), doc(2, ev("A", ["vm-0"])), "vm-0", T0);
    s = hookStarted(s, { kind: "drain", key: "a" }, T0);
    expect(dueHooks(s)).toEqual([]);
  });

  it("owes a recover once a drained event leaves the document (completed or cancelled)", () => {
    let s = runAll(observeDocument(emptyState(), doc(2, ev("A", ["vm-0"])), "vm-0", T0));
    s = observeDocument(s, doc(3), "vm-0", T0 + 1000);
    expect(dueHooks(s)).toEqual([{ kind: "recover", key: "a" }]);
    s = runAll(s);
    expect(dueHooks(s)).toEqual([]);
    expect(reportedHooks(s)[0]?.recover?.status).toBe("succeeded");
  });

  it("recovers even after a failed drain, but waits for a running drain to end", () => {
    let s = observeDocument(emptyState(), doc(2, ev("A", ["vm-0"])), "vm-0", T0);
    s = hookStarted(s, { kind: "drain", key: "a" }, T0);
    s = observeDocument(s, doc(3), "vm-0", T0 + 1000);
    expect(dueHooks(s)).toEqual([]);
    s = hookFinished(s, { kind: "drain", key: "a" }, { ok: false, detail: "exit 3" }, T0 + 2000);
    expect(dueHooks(s)).toEqual([{ kind: "recover", key: "a" }]);
  });

  it("drains at once for an event first seen as Started (hardware failure)", () => {
    const s = observeDocument(emptyState(), doc(2, ev("A", ["vm-0"], "Started")), "vm-0", T0);
    expect(dueHooks(s)).toEqual([{ kind: "drain", key: "a" }]);
  });

  it("re-runs an interrupted drain with the next attempt number, and a finished one never", () => {
    let s = observeDocument(emptyState(), doc(2, ev("A", ["vm-0"]), ev("B", ["vm-0"])), "vm-0", T0);
    s = hookStarted(s, { kind: "drain", key: "a" }, T0);
    s = runAll(hookStarted(s, { kind: "drain", key: "b" }, T0)); // nothing due while both run
    s = hookFinished(s, { kind: "drain", key: "b" }, { ok: true, detail: "exit 0" }, T0);
    s = markInterrupted(s, T0 + 500, "relay stopped");
    expect(s.events.a?.drain?.status).toBe("interrupted");
    expect(dueHooks(s)).toEqual([{ kind: "drain", key: "a" }]);
    s = hookStarted(s, { kind: "drain", key: "a" }, T0 + 600);
    expect(s.events.a?.drain?.attempt).toBe(2);
  });

  it("runs a directed recover only for an event it drained for, once", () => {
    let s = runAll(
      observeDocument(emptyState(), doc(2, ev("A", ["vm-0"]), ev("B", ["vm-1"])), "vm-0", T0),
    );
    expect(requestRecover(s, "b")).toBe(s);
    s = requestRecover(s, "a");
    expect(requestRecover(s, "A")).toBe(s);
    expect(dueHooks(s)).toEqual([{ kind: "recover", key: "a" }]);
    s = runAll(s);
    expect(dueHooks(s)).toEqual([]);
  });

  it("forgets settled events an hour after they left, and keeps the last 20 recent approvals", () => {
    let s = runAll(observeDocument(emptyState(), doc(2, ev("A", ["vm-0"])), "vm-0", T0));
    s = runAll(observeDocument(s, doc(3), "vm-0", T0));
    expect(Object.keys(prune(s, T0 + FORGET_AFTER_MS - 1).events)).toEqual(["a"]);
    expect(Object.keys(prune(s, T0 + FORGET_AFTER_MS + 1).events)).toEqual([]);
    const results = Array.from({ length: 25 }, (_, i) => ({
      eventId: `e${i}`,
      outcome: "accepted" as const,
      at: new Date(T0).toISOString(),
    }));
    const kept = recordApprovals(s, results, T0).approvals;
    expect(kept.map((a) => a.eventId)).toEqual(results.slice(5).map((a) => a.eventId));
    expect(recordApprovals(s, results, T0 + FORGET_AFTER_MS + 1).approvals).toEqual([]);
  });

  it("keeps an owed recover however long the event has been gone", () => {
    let s = runAll(observeDocument(emptyState(), doc(2, ev("A", ["vm-0"])), "vm-0", T0));
    s = observeDocument(s, doc(3), "vm-0", T0);
    s = prune(s, T0 + 10 * FORGET_AFTER_MS);
    expect(dueHooks(s)).toEqual([{ kind: "recover", key: "a" }]);
  });
});
