import { DEFAULT_POLICY } from "@quiesce/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AzuriteHandle, startTestAzurite } from "../support/azurite";
import {
  call,
  dumpTables,
  freezeEvent,
  makeReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "./harness";

let azurite: AzuriteHandle;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(async () => {
  await azurite?.stop();
});

const report = (c: TestCoordinator, body: unknown, key = c.relayKey) =>
  call(c.handlers.report, request("POST", "relay/report", { key, body }));

describe("POST /api/relay/report", () => {
  it("registers a relay and answers an idle heartbeat with the idle interval", async () => {
    const c = await testCoordinator(azurite.connectionString);
    const res = await report(c, makeReport("web-0"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      protocol: "1.0",
      applied: true,
      nextReportInSeconds: DEFAULT_POLICY.idleReportSeconds,
      directives: [],
    });
    const tables = await dumpTables(c.connectionString, c.prefix);
    expect(tables.Members).toHaveLength(1);
  });

  it("elects exactly one approver once every VM named in Resources has drained", async () => {
    const c = await testCoordinator(azurite.connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    await report(c, makeReport("web-0"));
    await report(c, makeReport("web-1"));
    const first = await report(
      c,
      makeReport("web-0", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    expect(first.body.directives).toEqual([]);
    const second = await report(
      c,
      makeReport("web-1", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    expect(second.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [ev.EventId] }),
    ]);
  });
});
