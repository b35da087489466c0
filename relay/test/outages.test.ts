import { createLogger } from "@quiesce/protocol";
import { describe, expect, it } from "vitest";
import { type Harness, scheduled, useHarness } from "./support/harness";
import { waitFor } from "./support/wait";

/**
 * The relay when its neighbours misbehave: an unreachable or older coordinator, IMDS storms and
 * malformed or odd documents; it keeps draining and reports until the coordinator stored it all.
 */
describe("relay against IMDS and coordinator stand-ins", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
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
    await h.morePolls(5);
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
    const logger = createLogger({
      sink: ({ level, msg }) => {
        if (level === "warn") lines.push(msg);
      },
    });
    const relay = await h.start({}, { logger });
    await waitFor("the first document", () => relay.state().document !== null);
    h.imds.rawBody = '{"DocumentIncarnation":"x","Events":[]}';
    await h.morePolls(2);
    h.imds.rawBody = "<html>502 Bad Gateway</html>";
    await h.morePolls(2);
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
    await h.morePolls(2);
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
    await h.morePolls(3);
    expect(await h.hooks()).toEqual(["drain E1 1"]);
  });

  it("reports at the active interval until the coordinator shows it stored the final hook states", async () => {
    h.coordinator.nextReportInSeconds = 30; // idle: were its hooks stored, it would wait
    h.coordinator.extraFields = { activeReportSeconds: 1, hooksStored: [] };
    await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    await waitFor("the final report", () =>
      h.coordinator.reports.some((r) => r.hooks[0]?.recover?.status === "succeeded"),
    );
    // Not listed as stored: it reports again within the active interval though nothing changed.
    const count = h.coordinator.reports.length;
    await waitFor(
      "a report within the active interval",
      () => h.coordinator.reports.length > count,
      2_500,
    );
    h.coordinator.extraFields = { activeReportSeconds: 1, hooksStored: ["E1"] };
    await waitFor(
      "a report answered with its hooks stored",
      () => h.coordinator.reports.length > count + 1,
      2_500,
    );
    // Listed as stored: back to the 30 s the coordinator asked for.
    const stored = h.coordinator.reports.length;
    await h.morePolls(3);
    expect(h.coordinator.reports.length).toBe(stored);
  });
});
