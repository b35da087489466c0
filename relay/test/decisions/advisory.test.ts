import type { ScheduledEvent, ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import { planApproval } from "../../src/decisions/approve";
import {
  dueHooks,
  type HookAction,
  hookFinished,
  hookStarted,
  observeDocument,
} from "../../src/decisions/reconcile";
import { emptyState, type RelayState } from "../../src/decisions/state";
import { hookTimeoutMs } from "../../src/decisions/timeouts";
import { hookEnvironment } from "../../src/hooks/payload";
import { dueEvictions } from "../../src/kubernetes/evictions";
import type { PodInfo } from "../../src/kubernetes/objects";

/**
 * Spot rebalance recommendations in the relay's decisions (issue 32): never approved, whoever
 * directs it; drained and recovered like other events under `hooks`, ignored under `none`; the
 * hooks told it is advisory; no deadline pressure; and its recover never lets go of a node that
 * a Preempt following it still holds.
 */

const T0 = Date.parse("2026-01-01T00:00:00Z");
const ev = (id: string, type: string, status: "Scheduled" | "Started" = "Scheduled") =>
  ({
    EventId: id,
    EventType: type,
    ResourceType: "VirtualMachine",
    Resources: ["vm-0"],
    EventStatus: status,
    NotBefore: status === "Scheduled" ? "Thu, 01 Jan 2026 00:00:30 GMT" : "",
    DurationInSeconds: -1,
  }) satisfies ScheduledEvent;
const doc = (n: number, ...events: ScheduledEvent[]): ScheduledEventsDocument => ({
  DocumentIncarnation: n,
  Events: events,
});
const rebalance = ev("R1", "SpotRebalanceRecommendation");
const preempt = ev("P1", "Preempt");

const run = (s: RelayState, a: HookAction, ok = true) =>
  hookFinished(hookStarted(s, a, T0), a, { ok, detail: ok ? "exit 0" : "exit 1" }, T0);

describe("planApproval and an advisory event", () => {
  it("never posts it, even when a directive names it, and says why", () => {
    const plan = planApproval(doc(3, rebalance, preempt), ["r1", "P1"], [], T0);
    expect(plan.post).toEqual(["P1"]);
    expect(plan.skipped).toEqual([
      {
        eventId: "r1",
        outcome: "skipped",
        at: new Date(T0).toISOString(),
        detail: "advisory: approving a SpotRebalanceRecommendation has no effect",
      },
    ]);
  });
});

describe("dueHooks and an advisory event", () => {
  const seen = observeDocument(emptyState(), doc(2, rebalance), "vm-0", T0);

  it("under hooks (the default) drains it, and recovers once it left the document", () => {
    expect(dueHooks(seen)).toEqual([{ kind: "drain", key: "r1" }]);
    const drained = run(seen, { kind: "drain", key: "r1" });
    expect(dueHooks(drained, "hooks")).toEqual([]);
    const gone = observeDocument(drained, doc(3), "vm-0", T0 + 1000);
    expect(dueHooks(gone, "hooks")).toEqual([{ kind: "recover", key: "r1" }]);
  });

  it("under none runs no hook, in the document or after it left", () => {
    expect(dueHooks(seen, "none")).toEqual([]);
    expect(dueHooks(observeDocument(seen, doc(3), "vm-0", T0), "none")).toEqual([]);
  });

  it("lets a Preempt that replaces it drain first: its recover waits until that drain ended", () => {
    const drained = run(seen, { kind: "drain", key: "r1" });
    // Azure's Preempt takes the recommendation's place in one new document.
    const replaced = observeDocument(drained, doc(3, preempt), "vm-0", T0 + 1000);
    expect(dueHooks(replaced)).toEqual([{ kind: "drain", key: "p1" }]);
    const draining = hookStarted(replaced, { kind: "drain", key: "p1" }, T0 + 1000);
    expect(dueHooks(draining)).toEqual([]);
    const done = hookFinished(
      draining,
      { kind: "drain", key: "p1" },
      { ok: false, detail: "x" },
      T0,
    );
    expect(dueHooks(done)).toEqual([{ kind: "recover", key: "r1" }]);
  });
});

describe("an advisory event's hooks", () => {
  it("get the whole hook timeout: nothing happens at its NotBefore", () => {
    expect(hookTimeoutMs("drain", rebalance, T0, 600_000, 10_000)).toBe(600_000);
    expect(hookTimeoutMs("drain", preempt, T0, 600_000, 10_000)).toBeLessThan(30_000);
  });

  it("are told it is advisory in their environment and payload; other events' are told not", () => {
    const vm = {
      name: "vm-0",
      vmId: "id",
      resourceId:
        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-0",
    };
    const base = { hook: "drain" as const, attempt: 1, deadline: "", dryRun: false, vm };
    const advisory = hookEnvironment({ ...base, event: rebalance });
    expect(advisory).toMatchObject({
      QUIESCE_EVENT_TYPE: "SpotRebalanceRecommendation",
      QUIESCE_EVENT_ADVISORY: "true",
    });
    expect(JSON.parse(advisory.QUIESCE_EVENT_JSON as string)).toMatchObject({
      event: { EventType: "SpotRebalanceRecommendation" },
    });
    expect(hookEnvironment({ ...base, event: preempt }).QUIESCE_EVENT_ADVISORY).toBe("false");
  });

  it("evict, in the built-in Kubernetes drain, with the pods' own grace periods (no deadline to shorten them for)", () => {
    const pod = {
      uid: "u1",
      name: "web",
      namespace: "default",
      phase: "Running",
      annotations: {},
      terminationGracePeriodSeconds: 120,
    } as unknown as PodInfo;
    const deadline = T0 + 20_000;
    expect(dueEvictions([pod], {}, T0, deadline)[0]?.graceSeconds).toBe(19);
    expect(dueEvictions([pod], {}, T0, Number.POSITIVE_INFINITY)[0]?.graceSeconds).toBe(120);
  });
});
