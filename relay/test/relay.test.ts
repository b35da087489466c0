import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RelayState } from "../src/decisions/state";
import { Harness, RELAY_KEY, scheduled, started } from "./support/harness";
import { waitFor } from "./support/wait";

describe("relay against IMDS and coordinator stand-ins", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().setUp();
  });
  afterEach(async () => {
    await h.tearDown();
  });

  /** Wait until the relay has polled `n` more times, so "nothing more happened" means something. */
  const morePolls = async (n: number) => {
    const target = h.imds.eventRequests().length + n;
    await waitFor(`${n} more IMDS polls`, () => h.imds.eventRequests().length >= target);
  };

  it("drains once per event and only for events that name this VM", async () => {
    await h.start();
    h.imds.setEvents([
      scheduled("E-OURS", ["vm-1", "VM-0"]),
      scheduled("E-NEIGHBOUR", ["vm-1", "vm-2"]),
    ]);
    await waitFor("the drain hook", async () => (await h.hooks()).length > 0);
    await morePolls(4);
    expect(await h.hooks()).toEqual(["drain E-OURS 1"]);
    const report = await waitFor("a report with the drain succeeded", () => {
      const r = h.coordinator.last();
      return r?.hooks[0]?.drain?.status === "succeeded" ? r : undefined;
    });
    expect(report.hooks.map((x) => x.eventId)).toEqual(["E-OURS"]);
    expect(report.document?.Events).toHaveLength(2);
    expect(report.vm.name).toBe("vm-0");
  });

  it("recovers after the event completed (Scheduled, Started, gone)", async () => {
    await h.start();
    const e = scheduled("E1", ["vm-0"]);
    h.imds.setEvents([e]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.setEvents([started(e)]);
    await morePolls(2);
    expect(await h.hooks()).toEqual(["drain E1 1"]);
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    await waitFor(
      "a report with the recover succeeded",
      () => h.coordinator.last()?.hooks[0]?.recover?.status === "succeeded",
    );
  });

  it("recovers after the event was cancelled (left the document while Scheduled)", async () => {
    await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    await morePolls(2);
    expect(await h.hooks()).toEqual(["drain E1 1", "recover E1 1"]);
  });

  it("drains at once for an event first seen as Started, and recovers when it leaves", async () => {
    await h.start();
    h.imds.setEvents([started(scheduled("HW-FAIL", ["vm-0"]))]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain HW-FAIL 1"));
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover HW-FAIL 1"));
  });

  it("keeps polling IMDS and reporting while a drain hook is still running", async () => {
    const relay = await h.start({ QUIESCE_DRAIN_COMMAND: "sleep 30" });
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor(
      "the drain to start",
      () => relay.state().state.events.e1?.drain?.status === "running",
    );
    await waitFor(
      "a report showing the drain running",
      () => h.coordinator.last()?.hooks[0]?.drain?.status === "running",
    );
    await morePolls(3);
    h.imds.setEvents([]);
    await waitFor(
      "the next document, read while the drain runs",
      () => relay.state().document?.Events.length === 0,
    );
    expect(relay.state().state.events.e1?.drain?.status).toBe("running");
  });

  it("re-runs a drain interrupted by a restart, and never repeats a finished one", async () => {
    // The first attempt hangs until the relay is stopped under it.
    const drain = `echo "start $QUIESCE_HOOK_ATTEMPT" >> ${h.dir}/hooks.log; [ "$QUIESCE_HOOK_ATTEMPT" = 1 ] && sleep 30; echo "done $QUIESCE_HOOK_ATTEMPT" >> ${h.dir}/hooks.log`;
    const first = await h.start({ QUIESCE_DRAIN_COMMAND: drain });
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("the first drain attempt", async () => (await h.hooks()).includes("start 1"));
    await first.stop();
    const saved = RelayState.parse(JSON.parse(await readFile(h.stateFile, "utf8")));
    expect(saved.events.e1?.drain?.status).toBe("interrupted");

    const second = await h.start({ QUIESCE_DRAIN_COMMAND: drain });
    await waitFor(
      "the drain to run again",
      () => second.state().state.events.e1?.drain?.status === "succeeded",
    );
    expect(await h.hooks()).toEqual(["start 1", "start 2", "done 2"]);
    await second.stop();

    const third = await h.start({ QUIESCE_DRAIN_COMMAND: drain });
    await waitFor("the third relay to read the document", () => third.state().document !== null);
    await morePolls(3);
    expect(await h.hooks()).toEqual(["start 1", "start 2", "done 2"]);
    expect(third.state().state.events.e1?.drain?.attempt).toBe(2);
  });

  it("runs a recover still owed after a restart, even if the event left while the relay was down", async () => {
    const first = await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", () => first.state().state.events.e1?.drain?.status === "succeeded");
    await first.stop();
    h.imds.setEvents([]);
    await h.start();
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
  });

  it("keeps polling and draining while the coordinator is unreachable, and reports as soon as it answers again", async () => {
    const relay = await h.start();
    await waitFor("a first report", () => h.coordinator.reports.length > 0);
    h.coordinator.down = true;
    const reportsBefore = h.coordinator.reports.length;
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor(
      "drain during the outage",
      () => relay.state().state.events.e1?.drain?.status === "succeeded",
    );
    await morePolls(5);
    await waitFor(
      // Ten failures in a row take the backoff to its cap several times over: the state a relay
      // is in after a minute-long outage with the production timings (1 s doubling to 10 s).
      "ten failed reports in a row",
      () => relay.state().coordinator.failuresInARow >= 10,
    );
    expect(h.coordinator.reports.length).toBe(reportsBefore);
    h.coordinator.down = false;
    const report = await waitFor(
      "a report within one capped backoff (300 ms here) of the coordinator's return",
      () => h.coordinator.reports[reportsBefore],
      2_000,
    );
    expect(report.hooks[0]).toMatchObject({
      eventId: "E1",
      drain: { status: "succeeded", attempt: 1 },
    });
    expect(report.relay.seq).toBeGreaterThan(
      h.coordinator.reports[reportsBefore - 1]?.relay.seq ?? -1,
    );
  });

  it("survives bursts of IMDS 410, 429 and 500 answers and drains once IMDS answers", async () => {
    const relay = await h.start();
    await waitFor("the first document", () => relay.state().document !== null);
    h.imds.faults = [410, 410, 410, 429, 429, 500, 502, 503];
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain after the burst", async () => (await h.hooks()).includes("drain E1 1"));
    expect(h.imds.faults).toEqual([]);
  });

  it("skips malformed IMDS bodies without stopping, and acts on the next good document", async () => {
    const lines: string[] = [];
    const logger = { debug() {}, info() {}, warn: (msg: string) => lines.push(msg), error() {} };
    const relay = await h.start({}, { logger });
    await waitFor("the first document", () => relay.state().document !== null);
    h.imds.rawBody = '{"DocumentIncarnation":"x","Events":[]}';
    await morePolls(2);
    h.imds.rawBody = "<html>502 Bad Gateway</html>";
    await morePolls(2);
    expect(lines.filter((l) => l.startsWith("IMDS document malformed"))).toHaveLength(2);
    expect(await h.hooks()).toEqual([]);
    const unreadable = await waitFor(
      "the problem reported",
      () => h.coordinator.last()?.imdsProblems,
    );
    expect(unreadable).toEqual([{ kind: "document", detail: expect.stringMatching(/^not JSON/) }]);
    h.imds.rawBody = undefined;
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
  });

  it("keeps reporting to a 1.0 coordinator that refuses the 1.1 fields, without them", async () => {
    h.coordinator.strict10 = true;
    const relay = await h.start();
    await waitFor("the first document", () => relay.state().document !== null);
    h.imds.rawBody = "<html>502 Bad Gateway</html>"; // the relay now has IMDS problems to report
    await morePolls(2);
    const before = h.coordinator.reports.length;
    await waitFor(
      "reports applied after the refusal",
      () => h.coordinator.reports.length > before + 1,
    );
    expect(h.coordinator.invalid.length).toBeGreaterThan(0);
    expect(h.coordinator.reports.slice(before).every((r) => r.imdsProblems === undefined)).toBe(
      true,
    );
    h.imds.rawBody = undefined;
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor(
      "the document reported",
      () => h.coordinator.last()?.document?.Events.length === 1,
    );
  });

  it("reads an odd document event by event: drains what names this VM, reports what it cannot read", async () => {
    await h.start();
    h.imds.rawBody = JSON.stringify({
      DocumentIncarnation: "4",
      Events: [
        {
          ...scheduled("E-ODD", ["vm-0"]),
          NotBefore: "soon",
          DurationInSeconds: "5",
          EventStatus: "scheduled",
        },
        { EventId: "E-UNREADABLE", EventStatus: "Scheduled", Resources: "vm-0" },
      ],
    });
    await waitFor("drain", async () => (await h.hooks()).includes("drain E-ODD 1"));
    const r = await waitFor("a report with the problems", () => {
      const last = h.coordinator.last();
      return last?.imdsProblems?.length === 2 ? last : undefined;
    });
    expect(
      r.document?.Events.map((e) => [e.EventId, e.EventStatus, e.NotBefore, e.DurationInSeconds]),
    ).toEqual([["E-ODD", "Scheduled", "", 5]]);
    expect(r.imdsProblems?.map((p) => [p.kind, p.eventId, p.field])).toEqual([
      ["field", "E-ODD", "NotBefore"],
      ["event", "E-UNREADABLE", "Resources"],
    ]);
    h.imds.rawBody = undefined;
    h.imds.setEvents([scheduled("E-ODD", ["vm-0"])]);
    await waitFor("a clean report", () => {
      const last = h.coordinator.last();
      return last?.document?.Events[0]?.NotBefore !== "" && last?.imdsProblems === undefined;
    });
  });

  it("does not take an event that became unreadable for one that left: no recover, still reported", async () => {
    await h.start();
    const e = scheduled("E1", ["vm-0"]);
    h.imds.setEvents([e]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.rawBody = JSON.stringify({ DocumentIncarnation: 9, Events: [{ ...e, EventStatus: 3 }] });
    const r = await waitFor("a report with the problem", () => {
      const last = h.coordinator.last();
      return last?.imdsProblems?.length ? last : undefined;
    });
    expect(r.document?.DocumentIncarnation).toBe(9);
    expect(r.document?.Events.map((x) => x.EventId)).toEqual(["E1"]);
    await morePolls(3);
    expect(await h.hooks()).toEqual(["drain E1 1"]);
  });

  it("reports at the active interval until the coordinator shows it stored the final hook states", async () => {
    h.coordinator.nextReportInSeconds = 30; // idle: without the acknowledgement it would wait
    h.coordinator.extraFields = { activeReportSeconds: 1, hooksStored: [] };
    await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    await waitFor("the final report", () =>
      h.coordinator.reports.some((r) => r.hooks[0]?.recover?.status === "succeeded"),
    );
    // Not acknowledged: it reports again within the active interval though nothing changed.
    const count = h.coordinator.reports.length;
    await waitFor(
      "a report within the active interval",
      () => h.coordinator.reports.length > count,
      2_500,
    );
    h.coordinator.extraFields = { activeReportSeconds: 1, hooksStored: ["E1"] };
    await waitFor("an acknowledged report", () => h.coordinator.reports.length > count + 1, 2_500);
    // Acknowledged: back to the 30 s the coordinator asked for.
    const acked = h.coordinator.reports.length;
    await morePolls(3);
    expect(h.coordinator.reports.length).toBe(acked);
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
    await morePolls(3);
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
