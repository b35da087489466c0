import { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import { defaultTopology } from "../topology/topologies";
import { Topology } from "../topology/topology";
import { renderDocument } from "./document";
import {
  advance,
  cancelEvent,
  createFabric,
  injectFault,
  scheduleEvent,
  startRequests,
  takeFault,
} from "./fabric";
import type { FabricState, Instant, Outcome, Transition } from "./types";

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const at = (seconds: number): Instant => ({ simMs: T0 + seconds * 1000, realMs: 0 });

function must<T>(o: Outcome<T>): Transition<T> {
  if (!o.ok) throw new Error(o.error.message);
  return o.value;
}

const fabric = () => must(createFabric(defaultTopology())).value;

const schedule = (
  s: FabricState,
  eventId: string,
  extra: Record<string, unknown> = {},
  when = at(0),
) =>
  must(
    scheduleEvent(
      s,
      {
        eventId,
        eventType: "Reboot",
        eventSource: "Platform",
        startImmediately: false,
        group: "avset-web",
        ...extra,
      },
      when,
    ),
  );

describe("fabric model", () => {
  it("renders documents that parse with the relay's ScheduledEventsDocument schema", () => {
    let s = schedule(fabric(), "e1", { resources: ["web-0"] }).state;
    s = schedule(s, "e2", { eventType: "Freeze", startImmediately: true }).state;
    const doc = renderDocument(s, "avset-web");
    expect(ScheduledEventsDocument.parse(doc)).toEqual(doc);
    expect(doc.DocumentIncarnation).toBe(3);
  });

  it("rounds NotBefore up to a whole second so the auto-start matches what VMs were shown", () => {
    const { value } = schedule(
      fabric(),
      "e1",
      { noticeSeconds: 10 },
      { simMs: T0 + 400, realMs: 0 },
    );
    expect(value.notBeforeMs).toBe(T0 + 11_000);
  });

  it("coalesces transitions due at the same instant in the same group into one document", () => {
    let s = schedule(fabric(), "a", { noticeSeconds: 60, resources: ["web-0"] }).state;
    s = schedule(s, "b", { noticeSeconds: 60, resources: ["web-1"] }).state;
    s = schedule(s, "c", { noticeSeconds: 60, group: "avset-db" }).state;
    s = advance(s, at(60));
    expect(s.groups["avset-web"]?.incarnation).toBe(4);
    expect(s.groups["avset-db"]?.incarnation).toBe(3);
    const last = s.timeline.at(-2);
    expect(last?.kind === "document" && last.reason).toBe(
      "a Started at NotBefore; b Started at NotBefore",
    );
  });

  it("keeps a group's simultaneous transitions in one document even when another group has one at that instant", () => {
    let s = schedule(fabric(), "w1", { noticeSeconds: 60, resources: ["web-0"] }).state;
    s = schedule(s, "d1", { noticeSeconds: 60, group: "avset-db" }).state;
    s = schedule(s, "w2", { noticeSeconds: 60, resources: ["web-1"] }).state;
    s = advance(s, at(60));
    expect(s.groups["avset-web"]?.incarnation).toBe(4);
    expect(s.groups["avset-db"]?.incarnation).toBe(3);
  });

  it("processes due transitions in time order across groups", () => {
    let s = schedule(fabric(), "late", { noticeSeconds: 90, group: "avset-db" }).state;
    s = schedule(s, "early", { noticeSeconds: 30 }).state;
    s = advance(s, at(1000));
    const docs = s.timeline.filter((e) => e.kind === "document").slice(2);
    expect(docs.map((d) => d.at.simMs - T0)).toEqual([30_000, 40_000, 90_000, 100_000]);
  });

  it("deletes a Preempted VM only after the document without the event was published", () => {
    let s = schedule(fabric(), "p", {
      eventType: "Preempt",
      group: "vmss-api-pg0",
      resources: ["vmss-api_3"],
    }).state;
    s = advance(s, at(3600));
    expect(s.timeline.slice(-2).map((e) => e.kind)).toEqual(["document", "vmDeleted"]);
    expect(s.vms["vmss-api_3"]?.deleted).toBe(true);
    expect(s.vms["vmss-api_2"]?.deleted).toBe(false);
  });

  it("never cancels a Started event", () => {
    const s = schedule(fabric(), "x", { startImmediately: true }).state;
    const r = cancelEvent(s, "x", at(1));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.status).toBe(409);
  });

  it("approval by a VM outside the event's group changes nothing but is recorded", () => {
    const s = schedule(fabric(), "x").state;
    const r = must(startRequests(s, "db-0", { StartRequests: [{ EventId: "x" }] }, at(1)));
    expect(r.value).toEqual([{ eventId: "x", outcome: "unknown" }]);
    expect(r.state.active[0]?.phase).toBe("Scheduled");
    expect(r.state.groups["avset-web"]?.incarnation).toBe(2);
  });

  it("starts every approved event of one StartRequests in a single new document", () => {
    let s = schedule(fabric(), "x", { resources: ["web-0"] }).state;
    s = schedule(s, "y", { resources: ["web-1"] }).state;
    const r = must(
      startRequests(s, "web-2", { StartRequests: [{ EventId: "X" }, { EventId: "y" }] }, at(1)),
    );
    expect(r.state.groups["avset-web"]?.incarnation).toBe(4);
    expect(r.state.active.map((e) => e.phase)).toEqual(["Started", "Started"]);
  });

  it("counts a faulted request against the fault's count and drops it when spent", () => {
    let s = must(
      injectFault(fabric(), { vm: "web-0", route: "any", status: 500, count: 2 }, at(0)),
    ).state;
    const first = takeFault(s, "web-0", "scheduledevents", at(0));
    expect(first.status).toBe(500);
    s = first.state;
    expect(takeFault(s, "web-1", "scheduledevents", at(0)).status).toBeUndefined();
    const second = takeFault(s, "web-0", "instance", at(0));
    expect(second.status).toBe(500);
    expect(second.state.faults).toEqual([]);
    expect(takeFault(second.state, "web-0", "scheduledevents", at(0)).status).toBeUndefined();
  });

  it("rejects topologies with duplicate names, case-insensitively", () => {
    const t = Topology.parse({
      groups: [
        { kind: "availabilitySet", name: "a", vms: ["Vm1"] },
        { kind: "standalone", vms: ["vm1"] },
      ],
    });
    const r = createFabric(t);
    expect(r.ok).toBe(false);
  });
});
