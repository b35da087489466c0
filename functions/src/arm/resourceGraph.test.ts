import {
  armToken,
  type FabricSimulator,
  ManualClock,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { resourceGraphRequest } from "@quiesce/protocol/published";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createArmPorts } from "../controlPlane/armPorts";
import { type ArmClient, createArmClient } from "./client";
import { parseQuotaResetsAfter, queryScheduledEvents, RESOURCE_GRAPH_PATH } from "./resourceGraph";

// The Resource Graph backstop's read through the real ARM client, against the fabric simulator's
// Resource Graph (paging, subscriptions, RBAC, quota) and a stub for answers the simulator never
// gives (a malformed page).

const OTHER_SUB = "11111111-1111-4111-8111-111111111111";
let sim: FabricSimulator;
let client: ArmClient;
const sub = () => sim.state().topology.subscriptionId;
const graphRequests = () =>
  sim.arm.requests().filter((r) => r.path.toLowerCase() === RESOURCE_GRAPH_PATH.toLowerCase());

const optIn = { scheduledEventsPolicy: { eventGridAndResourceGraph: true } };
beforeAll(async () => {
  // The groups publish their events off the VM: Resource Graph only has those that opted in.
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    topology: {
      groups: [
        { kind: "availabilitySet", name: "avset-web", vmNamePrefix: "web-", vms: 2, ...optIn },
        { kind: "availabilitySet", name: "avset-db", vmNamePrefix: "db-", vms: 2, ...optIn },
        {
          kind: "scaleSetPlacementGroup",
          name: "vmss-api-pg0",
          scaleSetName: "vmss-api",
          vms: 2,
          ...optIn,
        },
      ],
    },
  });
});
afterAll(() => sim?.stop());
beforeEach(() => {
  sim.reset();
  client = createArmClient({
    endpoint: sim.armUrl,
    // The simulator's managed-identity endpoint, as ManagedIdentityCredential would ask it.
    credential: {
      getToken: async () => ({
        token: await armToken(sim.identity),
        expiresOnTimestamp: Date.now() + 3_600_000,
      }),
    },
    sleep: async () => {},
  });
});
afterEach(() => client.close());

/** Three events, one per group. */
function threeEvents(): string[] {
  return [
    sim.schedule({ eventType: "Reboot", group: "avset-web" }),
    sim.schedule({ eventType: "Freeze", group: "vmss-api-pg0", startImmediately: true }),
    sim.schedule({ eventType: "Redeploy", group: "avset-db" }),
  ].map((e) => e.eventId);
}

describe("queryScheduledEvents against the simulator", () => {
  it("reads one page: every event as an observation scoped to its availability set or scale set", async () => {
    const ids = threeEvents();
    const r = await queryScheduledEvents(client, [sub()]);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toMatchObject({ ignored: 0, problems: [], pages: 1, truncated: false });
    expect(r.value.observations.map((o) => o.event.EventId).sort()).toEqual([...ids].sort());
    expect(r.value.observations.every((o) => o.source === "resourceGraph")).toBe(true);
    expect(graphRequests()).toMatchObject([
      {
        method: "POST",
        apiVersion: "2022-10-01",
        status: 200,
        principalId: sim.identity.principalId,
      },
    ]);
  });

  it("follows $skipToken page by page, and stops at maxPages with the rest left for the next run", async () => {
    const ids = threeEvents();
    const all = await queryScheduledEvents(client, [sub()], { top: 1 });
    if (!all.ok) throw new Error(all.error.message);
    expect([all.value.pages, all.value.truncated]).toEqual([3, false]);
    expect(new Set(all.value.observations.map((o) => o.event.EventId))).toEqual(new Set(ids));
    const bounded = await queryScheduledEvents(client, [sub()], { top: 1, maxPages: 2 });
    if (!bounded.ok) throw new Error(bounded.error.message);
    expect([bounded.value.pages, bounded.value.truncated]).toEqual([2, true]);
    expect(bounded.value.observations).toHaveLength(2);
    expect(graphRequests()).toHaveLength(5);
  });

  it("asks only for the subscriptions given, each once, in batches; a batch the identity cannot query is an error", async () => {
    threeEvents();
    const mixed = await queryScheduledEvents(client, [OTHER_SUB, sub(), sub().toUpperCase()]);
    if (!mixed.ok) throw new Error(mixed.error.message);
    expect(mixed.value.observations).toHaveLength(3);
    const none = await queryScheduledEvents(client, [OTHER_SUB]);
    expect(none).toMatchObject({ ok: false, error: { status: 403, code: "AuthorizationFailed" } });
    const batched = await queryScheduledEvents(client, [sub(), OTHER_SUB], { batchSize: 1 });
    expect(batched).toMatchObject({ ok: false, error: { status: 403 } });
    expect(graphRequests().map((r) => r.status)).toEqual([200, 403, 200, 403]);
    expect(await queryScheduledEvents(client, [])).toMatchObject({ ok: true, value: { pages: 0 } });
    expect(await queryScheduledEvents(client, ["../x"])).toMatchObject({
      ok: false,
      error: { code: "InvalidRequest", attempts: 0 },
    });
  });

  it("stops paging when the quota is spent, and reports a throttled read (429 RateLimiting) with when to come back", async () => {
    threeEvents();
    sim.arm.setResourceGraphQuota({ limit: 1, windowMs: 60_000 });
    const first = await queryScheduledEvents(client, [sub()], { top: 2 });
    // The first page says no query is left: the rest waits for the next read.
    expect(first).toMatchObject({
      ok: true,
      value: { pages: 1, truncated: true, quotaRemaining: 0 },
    });
    if (first.ok) expect(first.value.quotaResetsAfterMs).toBeGreaterThan(50_000);
    const second = await queryScheduledEvents(client, [sub()], { top: 2 });
    expect(second).toMatchObject({ ok: false, error: { status: 429, code: "RateLimiting" } });
    expect(graphRequests().map((q) => q.status)).toEqual([200, 429, 429, 429, 429]);
  });

  it("fails without a token, sending nothing", async () => {
    const anonymous = createArmClient({
      endpoint: sim.armUrl,
      credential: recordingCredential({ none: true }),
    });
    const r = await queryScheduledEvents(anonymous, [sub()]);
    await anonymous.close();
    expect(r).toMatchObject({ ok: false, error: { status: 0, code: "CredentialUnavailable" } });
    expect(graphRequests()).toEqual([]);
  });

  it("is the control plane's scheduledEvents port", async () => {
    threeEvents();
    const ports = createArmPorts(client);
    const read = await ports.scheduledEvents([sub()]);
    expect(read).toMatchObject({ ok: true, value: { pages: 1, truncated: false } });
    expect(await ports.scheduledEvents([OTHER_SUB])).toEqual({
      ok: false,
      error: { status: 403, code: "AuthorizationFailed", message: expect.any(String) },
    });
  });
});

describe("queryScheduledEvents against answers the simulator does not give", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
  });
  afterEach(() => arm.close());

  it("reports a page that is not a Resource Graph result, and Resource Graph's 400", async () => {
    stub.on("POST", RESOURCE_GRAPH_PATH, { status: 200, body: { value: [] } });
    const malformed = await queryScheduledEvents(arm, [OTHER_SUB]);
    expect(malformed).toMatchObject({ ok: false, error: { status: 200, code: "InvalidResponse" } });
    expect(JSON.parse(stub.requests[0]?.body ?? "null")).toEqual(resourceGraphRequest([OTHER_SUB]));
    stub.on("POST", RESOURCE_GRAPH_PATH, {
      status: 400,
      body: {
        error: { code: "BadRequest", message: "support", details: [{ code: "InvalidQuery" }] },
      },
    });
    const refused = await queryScheduledEvents(arm, [OTHER_SUB]);
    expect(refused).toMatchObject({ ok: false, error: { status: 400, code: "BadRequest" } });
  });
});

describe("the quota headers, once the client passes response headers on", () => {
  const page = { totalRecords: 0, count: 0, resultTruncated: "false", data: [] };
  /** A client whose answers carry `headers` (the ARM client's today carry none). */
  const withHeaders = (
    answers: Array<{ status: number; headers: Record<string, string>; body?: unknown }>,
  ): ArmClient => ({
    endpoint: "https://management.azure.com",
    close: async () => {},
    async request<T>() {
      const a = answers.shift();
      if (!a) throw new Error("no more answers");
      if (a.status === 429) {
        const error = {
          status: 429,
          code: "RateLimiting",
          message: "",
          attempts: 1,
          headers: a.headers,
        };
        return { ok: false, error };
      }
      // The body is whatever the script says; the code under test parses it itself.
      const body: unknown = a.body ?? page;
      const value = { status: a.status, body: body as T, attempts: 1, headers: a.headers };
      return { ok: true, value };
    },
  });
  const quota = (remaining: string, resets: string) => ({
    "x-ms-user-quota-remaining": remaining,
    "x-ms-user-quota-resets-after": resets,
  });

  it("reads hh:mm:ss (with or without a fraction) and refuses anything else", () => {
    expect(parseQuotaResetsAfter("00:00:05")).toBe(5_000);
    expect(parseQuotaResetsAfter("01:02:03.5")).toBe(3_723_500);
    expect(parseQuotaResetsAfter("5")).toBeNull();
    expect(parseQuotaResetsAfter("00:61:00")).toBeNull();
  });

  it("reports the last remaining count and reset, stops when none is left, and gives a 429 the reset as its wait", async () => {
    const more = { ...page, totalRecords: 2, $skipToken: "next" };
    const r = await queryScheduledEvents(
      withHeaders([{ status: 200, headers: quota("0", "00:00:03"), body: more }]),
      [OTHER_SUB],
    );
    expect(r).toMatchObject({
      ok: true,
      value: { pages: 1, truncated: true, quotaRemaining: 0, quotaResetsAfterMs: 3_000 },
    });
    const throttled = await queryScheduledEvents(
      withHeaders([{ status: 429, headers: quota("0", "00:00:04") }]),
      [OTHER_SUB],
    );
    expect(throttled).toMatchObject({ ok: false, error: { status: 429, retryAfterMs: 4_000 } });
  });
});
