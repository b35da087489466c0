import { createServer } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ImdsClient } from "../../src/imds/client";
import { ImdsStandIn } from "../support/imdsStandIn";

const event = {
  EventId: "E1",
  EventType: "Reboot",
  ResourceType: "VirtualMachine",
  Resources: ["vm-0"],
  EventStatus: "Scheduled" as const,
  NotBefore: "Mon, 11 Apr 2022 22:26:58 GMT",
};

describe("ImdsClient", () => {
  let imds: ImdsStandIn;
  let client: ImdsClient;
  const make = (over: Partial<ConstructorParameters<typeof ImdsClient>[0]> = {}) =>
    new ImdsClient({
      baseUrl: imds.url,
      apiVersion: "2020-07-01",
      retryBaseMs: 20,
      retryMaxMs: 100,
      ...over,
    });

  beforeEach(async () => {
    imds = await new ImdsStandIn().start();
    client = make();
  });
  afterEach(async () => {
    await client.close();
    await imds.stop();
  });

  it("sends Metadata: true and the pinned api-version on every request", async () => {
    imds.setEvents([event]);
    await client.readScheduledEvents();
    await client.postStartRequests(["E1"]);
    await client.readIdentity();
    expect(imds.requests).toHaveLength(3);
    for (const r of imds.requests) expect(r.headers.metadata).toBe("true");
    expect(imds.requests[0]?.query.get("api-version")).toBe("2020-07-01");
    expect(imds.requests[2]?.query.get("api-version")).toBe("2021-02-01");
  });

  it("honours the ETag: the next read carries If-None-Match and a 304 means unchanged", async () => {
    imds.setEvents([event]);
    const first = await client.readScheduledEvents();
    expect(first.kind).toBe("document");
    const second = await client.readScheduledEvents();
    expect(second).toEqual({ kind: "unchanged" });
    expect(imds.requests[1]?.headers["if-none-match"]).toMatch(/^"/);
    imds.setEvents([]);
    const third = await client.readScheduledEvents();
    expect(third.kind === "document" && third.document.Events).toEqual([]);
  });

  it("rides out bursts of 410, 429 and 500 and returns the document", async () => {
    imds.setEvents([event]);
    imds.faults = [410, 410, 429, 500, 503];
    const read = await client.readScheduledEvents();
    expect(read.kind).toBe("document");
    expect(imds.eventRequests()).toHaveLength(6);
  });

  it("never sends more than 5 requests per second, even while retrying", async () => {
    await client.close();
    client = make({ retryBaseMs: 1, retryMaxMs: 1 });
    imds.faults = Array.from({ length: 11 }, () => 500);
    await client.readScheduledEvents();
    const at = imds.requests.map((r) => r.at);
    expect(at).toHaveLength(12);
    for (let i = 5; i < at.length; i++)
      expect((at[i] as number) - (at[i - 5] as number)).toBeGreaterThanOrEqual(950);
  });

  it("gives up after the retry budget and reports IMDS unavailable", async () => {
    await client.close();
    client = make({ retryBudgetMs: 300 });
    imds.faults = Array.from({ length: 100 }, () => 410);
    const read = await client.readScheduledEvents();
    expect(read).toEqual({
      kind: "unavailable",
      error: `HTTP 410: ${JSON.stringify({ error: "scripted 410" })}`,
    });
  });

  it("does not retry a 400 (a bug, not an outage)", async () => {
    imds.faults = [400];
    expect((await client.readScheduledEvents()).kind).toBe("unavailable");
    expect(imds.requests).toHaveLength(1);
  });

  it("retries connection errors", async () => {
    const port = await freePort();
    await client.close();
    client = new ImdsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiVersion: "2020-07-01",
      retryBaseMs: 20,
      retryMaxMs: 40,
      retryBudgetMs: 200,
    });
    const read = await client.readScheduledEvents();
    expect(read.kind).toBe("unavailable");
    expect(read.kind === "unavailable" && read.error).toMatch(/ECONNREFUSED/);
  });

  it("skips a malformed document and reads the fixed one even under the same ETag", async () => {
    imds.rawBody = '{"DocumentIncarnation": "two", "Events": []}';
    const bad = await client.readScheduledEvents();
    expect(bad.kind === "malformed" && bad.error).toMatch(/DocumentIncarnation/);
    imds.rawBody = "<html>not json";
    expect((await client.readScheduledEvents()).kind).toBe("malformed");
    imds.rawBody = undefined;
    expect((await client.readScheduledEvents()).kind).toBe("document");
    expect(imds.requests.at(-1)?.headers["if-none-match"]).toBeUndefined();
  });

  it("reads the VM identity from instance metadata", async () => {
    const vm = await client.readIdentity();
    expect(vm).toMatchObject({
      name: "vm-0",
      vmId: "id-vm-0",
      subscriptionId: "s",
      platformFaultDomain: "0",
    });
    expect(vm.zone).toBeUndefined();
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}
