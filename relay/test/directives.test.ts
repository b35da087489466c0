import { describe, expect, it } from "vitest";
import { type Harness, RELAY_KEY, scheduled, started, useHarness } from "./support/harness";
import { waitFor } from "./support/wait";

/**
 * What the relay does with the coordinator's answers: approves only what it was told and still
 * sees Scheduled, runs directed recovers once, stays dry in dry run, and authenticates reports.
 */
describe("relay against IMDS and coordinator stand-ins", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });

  it("approves only the directed events still Scheduled, echoing their ids exactly, and reports the answer", async () => {
    await h.start();
    const a = scheduled("C7061BAC-AFDC-4513-B24B-AA5F13A16123", ["vm-0", "vm-1"]);
    const b = started(scheduled("B-STARTED", ["vm-0"]));
    const c = scheduled("C-NOT-DIRECTED", ["vm-0"]);
    h.imds.setEvents([a, b, c]);
    await waitFor("drains", async () => (await h.hooks()).length === 3);
    await waitFor("several reports", () => h.coordinator.reports.length >= 3);
    expect(h.imds.startRequests).toEqual([]); // never on its own

    const before = h.coordinator.reports.length;
    h.coordinator.once = [
      {
        kind: "approve",
        eventIds: ["c7061bac-afdc-4513-b24b-aa5f13a16123", "B-STARTED", "GONE-1"],
        leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    ];
    await waitFor("StartRequests", () => h.imds.startRequests.length > 0);
    expect(h.imds.startRequests).toEqual([["C7061BAC-AFDC-4513-B24B-AA5F13A16123"]]);
    const report = await waitFor("the approval report", () =>
      h.coordinator.reports
        .slice(before)
        .find((r) => r.approvals.some((x) => x.outcome === "accepted")),
    );
    expect(report.approvals.map((x) => [x.eventId, x.outcome])).toEqual([
      ["B-STARTED", "skipped"],
      ["GONE-1", "skipped"],
      ["C7061BAC-AFDC-4513-B24B-AA5F13A16123", "accepted"],
    ]);
    await h.morePolls(3);
    expect(h.imds.startRequests).toHaveLength(1);
  });

  it("acts on the directives it understands when a newer 1.x coordinator adds fields and directive kinds", async () => {
    await h.start();
    const e = scheduled("E-NEWER", ["vm-0"]);
    h.imds.setEvents([e]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E-NEWER 1"));
    h.coordinator.protocol = "1.9";
    h.coordinator.extraFields = { budget: { inFlight: 1 }, hint: "added in 1.9" };
    h.coordinator.once = [
      { kind: "pauseReports", seconds: 5 },
      { kind: "approve", eventIds: ["E-NEWER"], leaseExpiresAt: "not a time" },
      {
        kind: "approve",
        eventIds: ["E-NEWER"],
        leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
        priority: 3,
      },
    ];
    await waitFor("StartRequests", () => h.imds.startRequests.length > 0);
    expect(h.imds.startRequests).toEqual([["E-NEWER"]]);
    await waitFor("the approval reported as accepted", () =>
      h.coordinator.last()?.approvals.some((a) => a.outcome === "accepted"),
    );
  });

  it("reports a StartRequests refusal as rejected", async () => {
    await h.start();
    h.imds.startRequestsStatus = 400;
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor(
      "a report with the document",
      () => h.coordinator.last()?.document?.Events.length === 1,
    );
    h.coordinator.once = [
      {
        kind: "approve",
        eventIds: ["E1"],
        leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    ];
    const report = await waitFor("the approval report", () =>
      h.coordinator.reports.find((r) => r.approvals.length > 0),
    );
    expect(report.approvals[0]).toMatchObject({
      eventId: "E1",
      outcome: "rejected",
      httpStatus: 400,
    });
  });

  it("in dry run does everything but the StartRequests POST", async () => {
    await h.start({ QUIESCE_DRY_RUN: "true" });
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.coordinator.once = [
      {
        kind: "approve",
        eventIds: ["E1"],
        leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    ];
    const report = await waitFor("the approval report", () =>
      h.coordinator.reports.find((r) => r.approvals.length > 0),
    );
    expect(report.approvals[0]).toMatchObject({
      eventId: "E1",
      outcome: "skipped",
      detail: "dry run: StartRequests not posted",
    });
    expect(report.relay.dryRun).toBe(true);
    expect(h.imds.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("runs a directed recover once, however often the directive repeats", async () => {
    h.coordinator.nextReportInSeconds = 0.2;
    await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"]), scheduled("E2", ["vm-1"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.coordinator.standing = [
      { kind: "recover", eventId: "e1" },
      { kind: "recover", eventId: "E2" },
    ];
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    const n = h.coordinator.reports.length;
    await waitFor(
      "more reports carrying the directive",
      () => h.coordinator.reports.length >= n + 3,
    );
    expect(await h.hooks()).toEqual(["drain E1 1", "recover E1 1"]);
  });

  it("authenticates every report with the key and sends only reports the protocol schema accepts", async () => {
    h.coordinator.nextReportInSeconds = 0.2;
    await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("heartbeats", () => h.coordinator.reports.length >= 5);
    expect(new Set(h.coordinator.authorizations)).toEqual(new Set([`Bearer ${RELAY_KEY}`]));
    expect(h.coordinator.invalid).toEqual([]);
    // seq and sentAt are still sent: a 1.0 coordinator requires them.
    const seqs = h.coordinator.reports.map((r) => r.relay.seq ?? -1);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(seqs.every((x) => x >= 0)).toBe(true);
    expect(h.coordinator.reports.every((r) => typeof r.sentAt === "string")).toBe(true);
    expect(new Set(h.coordinator.reports.map((r) => r.relay.bootId)).size).toBe(1);
  });
});
