import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { HookRun, RelayReport } from "@quiesce/protocol/relay";
import { report, run, scheduled, started, T0 } from "@quiesce/testkit/documents";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyReport, type ClusterState, emptyClusterState, tick } from "../src";
import { policy } from "./fixtures";

/**
 * A small world that plays Azure and the relays truthfully, driven by random interleavings of
 * drains, reports, duplicated and reordered reports, approval results, clock steps and sweeps.
 * After every step the coordinator's answers are checked against the world's ground truth.
 */

const VMS = ["vm0", "vm1", "vm2", "vm3"];
const GHOST = "ghost"; // named in Resources by some events, never runs a relay

type Action =
  | { kind: "drain"; vm: number; ev: number; ok: boolean }
  | { kind: "report"; vm: number }
  | { kind: "replay"; index: number }
  | { kind: "result"; vm: number; ok: boolean }
  | { kind: "clock"; ms: number }
  | { kind: "tick" }
  | { kind: "start"; ev: number }
  | { kind: "end"; ev: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("drain" as const),
      vm: fc.nat(3),
      ev: fc.nat(1),
      ok: fc.boolean(),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("report" as const), vm: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("replay" as const), index: fc.nat(200) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("result" as const), vm: fc.nat(3), ok: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("clock" as const),
      ms: fc.integer({ min: 100, max: 40_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "tick" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("start" as const), ev: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("end" as const), ev: fc.nat(1) }) },
);

const resourcesArb = fc.subarray([...VMS, GHOST], { minLength: 1, maxLength: 5 });

interface WorldEvent {
  event: ScheduledEvent;
  status: "Scheduled" | "Started" | "Gone";
}

function simulate(resources: string[][], actions: Action[], failedDrainsProceed: boolean) {
  const p = policy({
    onDrainFailure: failedDrainsProceed ? "proceed" : "block",
    maxEventsInFlight: 2,
  });
  const world: WorldEvent[] = resources.map((r, i) => ({
    event: scheduled(`EV-${i}`, r, { NotBefore: new Date(T0 + 3_600_000).toUTCString() }),
    status: "Scheduled",
  }));
  let incarnation = 1;
  const drains = new Map<string, HookRun>(); // `${vm}|${ev}` → the relay's true local hook state
  const sent: RelayReport[] = [];
  const pendingApproval = new Map<number, string[]>(); // vm → event ids it was told to approve
  const leases = new Map<string, { holder: string; expiresAt: number }>();
  let state: ClusterState = emptyClusterState("web");
  let now = T0;

  const documentEvents = () =>
    world
      .filter((w) => w.status !== "Gone")
      .map((w) => (w.status === "Started" ? started(w.event) : w.event));
  const currentReport = (vm: string, approvals: RelayReport["approvals"] = []) =>
    report(vm, incarnation, documentEvents(), {
      hooks: world
        .filter((w) => drains.has(`${vm}|${w.event.EventId}`))
        .map((w) => ({
          eventId: w.event.EventId,
          drain: drains.get(`${vm}|${w.event.EventId}`) as HookRun,
        })),
      approvals,
    });

  const apply = (r: RelayReport) => {
    const before = state;
    const d = applyReport(state, r, now, p);
    const mk = r.vm.name.toLowerCase();
    // Invariant 4: an older incarnation never changes state; otherwise nothing moves backwards.
    const storedInc = before.members[mk]?.incarnation ?? null;
    if (r.document && storedInc !== null && r.document.DocumentIncarnation < storedInc) {
      expect(d.state).toBe(before);
      expect(d.reply.applied).toBe(false);
    }
    for (const [ek, rows] of Object.entries(before.readiness)) {
      for (const [vm, row] of Object.entries(rows)) {
        if (row.drain?.status === "succeeded")
          expect(d.state.readiness[ek]?.[vm]?.drain?.status).toBe("succeeded");
      }
    }
    for (const dir of d.reply.directives) {
      if (dir.kind !== "approve") continue;
      for (const id of dir.eventIds) {
        const w = world.find((x) => x.event.EventId.toLowerCase() === id.toLowerCase());
        expect(w).toBeDefined();
        if (!w) continue;
        // Invariant 3: the approver sees the event Scheduled in its LATEST document.
        expect(r.document?.DocumentIncarnation).toBe(incarnation);
        expect(r.document?.Events.find((e) => e.EventId === id)?.EventStatus).toBe("Scheduled");
        // Invariant 1 (and 5): every VM in Resources truly drained; a VM without a relay never has.
        for (const vm of w.event.Resources) {
          const truth = drains.get(`${vm}|${w.event.EventId}`)?.status;
          if (failedDrainsProceed) expect(["succeeded", "failed"]).toContain(truth);
          else expect(truth).toBe("succeeded");
        }
        // Invariant 2: a new holder only once the previous lease expired or its holder failed.
        const prev = leases.get(id);
        if (prev && prev.holder !== mk && now < prev.expiresAt) {
          expect(d.state.events[id.toLowerCase()]?.failedApprovers).toContain(prev.holder);
        }
        leases.set(id, { holder: mk, expiresAt: Date.parse(dir.leaseExpiresAt) });
      }
      pendingApproval.set(VMS.indexOf(r.vm.name), dir.eventIds);
    }
    state = d.state;
  };

  for (const a of actions) {
    switch (a.kind) {
      case "drain": {
        const w = world[a.ev];
        const vm = VMS[a.vm] as string;
        if (!w || w.status === "Gone" || !w.event.Resources.includes(vm)) break;
        const key = `${vm}|${w.event.EventId}`;
        const cur = drains.get(key);
        if (!cur) drains.set(key, run("running"));
        else if (cur.status === "running") drains.set(key, run(a.ok ? "succeeded" : "failed"));
        break;
      }
      case "report": {
        const r = currentReport(VMS[a.vm] as string);
        sent.push(r);
        apply(r);
        break;
      }
      case "replay": {
        const r = sent[a.index % Math.max(1, sent.length)];
        if (r) apply(r);
        break;
      }
      case "result": {
        const ids = pendingApproval.get(a.vm);
        if (!ids) break;
        pendingApproval.delete(a.vm);
        const at = new Date(now).toISOString();
        const outcome = a.ok ? ("accepted" as const) : ("failed" as const);
        const r = currentReport(
          VMS[a.vm] as string,
          ids.map((eventId) => ({ eventId, outcome, at })),
        );
        sent.push(r);
        apply(r);
        break;
      }
      case "clock":
        now += a.ms;
        break;
      case "tick":
        state = tick(state, now, p).state;
        break;
      case "start": {
        const w = world[a.ev];
        if (w?.status === "Scheduled") {
          w.status = "Started";
          incarnation++;
        }
        break;
      }
      case "end": {
        const w = world[a.ev];
        if (w && w.status !== "Gone") {
          w.status = "Gone";
          incarnation++;
        }
        break;
      }
    }
  }
}

describe("invariants under random interleavings of reports, duplicates, reorderings and clock steps", () => {
  it("never directs an approval before every affected VM drained, elects only relays that see the event, keeps one lease holder, and never rolls back (invariants 1-5)", () => {
    fc.assert(
      fc.property(
        fc.array(resourcesArb, { minLength: 1, maxLength: 2 }),
        fc.array(action, { maxLength: 80 }),
        (r, a) => {
          simulate(r, a, false);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("with onDrainFailure=proceed, a failed drain counts as finished but a pending one still blocks", () => {
    fc.assert(
      fc.property(
        fc.array(resourcesArb, { minLength: 1, maxLength: 2 }),
        fc.array(action, { maxLength: 80 }),
        (r, a) => {
          simulate(r, a, true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("does elect an approver in runs where every affected VM drains and reports (the property is not vacuous)", () => {
    let approvals = 0;
    fc.assert(
      fc.property(fc.subarray(VMS, { minLength: 1 }), (resources) => {
        const ev = scheduled("EV-X", resources);
        let state = emptyClusterState("web");
        let now = T0;
        for (const vm of VMS) {
          now += 10;
          state = applyReport(state, report(vm, 1, []), now, policy()).state;
        }
        for (const vm of resources) {
          now += 10;
          const d = applyReport(
            state,
            report(vm, 2, [ev], { hooks: [{ eventId: "EV-X", drain: run("succeeded") }] }),
            now,
            policy(),
          );
          state = d.state;
          approvals += d.reply.directives.filter((x) => x.kind === "approve").length;
        }
      }),
      { numRuns: 50 },
    );
    expect(approvals).toBe(50);
  });
});
