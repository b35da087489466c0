import { useAzurite } from "@quiesce/testkit/azurite";
import { freezeEvent, makeReport, postReport, testCoordinator } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

/**
 * A rolling upgrade runs relays of several 1.x releases against one coordinator. A minor version
 * only adds optional fields, so this coordinator must accept what a newer relay adds and what an
 * older one still sends.
 */
describe("protocol 1.x compatibility at the coordinator", () => {
  it("applies a report from a newer 1.x relay that adds fields at every level", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0"]);
    const base = makeReport("web-0", { incarnation: 2, events: [ev], drained: [ev.EventId] });
    const newer = {
      ...base,
      protocol: "1.7",
      imdsProblems: [
        { kind: "field", field: "Description", detail: "Description unreadable: 1", hint: "1.7" },
      ],
      vm: { ...base.vm, osType: "Linux", availabilitySet: "avset-web" },
      relay: { ...base.relay, platform: "linux-x64", startedAt: base.sentAt },
      hooks: base.hooks.map((h) => ({
        ...h,
        drainTimeoutSeconds: 840,
        drain: { ...h.drain, exitCode: 0 },
      })),
    };
    const res = await postReport(c, newer);
    expect(res.status).toBe(200);
    expect(res.body.applied).toBe(true);
    // The report counted: the only VM drained, so it is elected approver.
    expect(res.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [ev.EventId] }),
    ]);
  });

  it("applies reports without the fields it never reads (seq, sentAt) and with them (1.0 relays)", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const { seq: _seq, ...relayWithoutSeq } = makeReport("web-0").relay;
    const { sentAt: _sentAt, ...withoutSentAt } = makeReport("web-0");
    expect((await postReport(c, { ...withoutSentAt, relay: relayWithoutSeq })).status).toBe(200);
    expect((await postReport(c, makeReport("web-1"))).status).toBe(200);
  });

  it("still refuses another major version, naming it", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const res = await postReport(c, { ...makeReport("web-0"), protocol: "2.0" });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"2.0"');
  });
});
