import {
  parseResourceGraphPage,
  RESOURCE_GRAPH_API_VERSION,
  resourceGraphRequest,
  SCHEDULED_EVENTS_QUERY,
} from "@quiesce/protocol/published";
import { describe, expect, it } from "vitest";
import { useArmSim } from "../testing/useArmSim";
import { armCall, armToken, errorCode } from "./probe";

/**
 * Resource Graph's query on the loopback ARM: the product's scheduled-events query answered from
 * the fabric's events, paged by `$top` and `$skipToken`, limited to the subscriptions asked about
 * and to what the caller may read, with the per-caller quota headers on every answer and a 429
 * once the quota is spent.
 */

const optIn = { scheduledEventsPolicy: { eventGridAndResourceGraph: true } };
/** Three groups that publish off the VM, and one that did not opt in. */
const arm = useArmSim({
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
    { kind: "availabilitySet", name: "avset-batch", vmNamePrefix: "batch-", vms: 2 },
  ],
});
const PATH = `/providers/Microsoft.ResourceGraph/resources?api-version=${RESOURCE_GRAPH_API_VERSION}`;
const OTHER_SUB = "11111111-1111-4111-8111-111111111111";
const sub = () => arm.sim.state().topology.subscriptionId;
/** `token`: null sends none. */
const query = (body: unknown, token: string | null = arm.token, path = PATH) =>
  armCall(arm.sim.armUrl, token ?? undefined, "POST", path, { body });
const ask = (subs = [sub()], opts: { top?: number; skipToken?: string } = {}) =>
  query(resourceGraphRequest(subs, opts));
const quota = (r: { headers: Headers }) => [
  r.headers.get("x-ms-user-quota-remaining"),
  r.headers.get("x-ms-user-quota-resets-after"),
];
const detail = (r: { body: unknown }) =>
  (r.body as { error: { details: Array<{ code: string }> } }).error.details[0]?.code;

/**
 * Three events, one per group that opted in, the db set's cancelled (a `Canceled` row, as Azure
 * keeps), and one of the group that did not (Resource Graph never has it).
 */
function threeEvents() {
  arm.sim.schedule({ eventType: "Reboot", group: "avset-batch" });
  arm.sim.schedule({ eventType: "Reboot", group: "avset-web" });
  arm.sim.schedule({ eventType: "Freeze", group: "vmss-api-pg0", startImmediately: true });
  arm.sim.cancel(arm.sim.schedule({ eventType: "Redeploy", group: "avset-db" }).eventId);
}

describe("Resource Graph's query of scheduled events", () => {
  it("answers the product's query with the fabric's events as maintenanceresources rows, projected and parseable", async () => {
    threeEvents();
    const r = await ask();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      totalRecords: 3,
      count: 3,
      resultTruncated: "false",
      facets: [],
    });
    expect(r.body).not.toHaveProperty("$skipToken");
    const rows = (r.body as { data: Array<Record<string, unknown>> }).data;
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(["id", "name", "properties", "type"]);
    const page = parseResourceGraphPage(r.body);
    if (!page.ok) throw new Error(page.error);
    expect(page.value.problems).toEqual([]);
    expect(page.value.observations.some((o) => o.scope.id.endsWith("/avset-batch"))).toBe(false);
    expect(page.value.observations.map((o) => o.event.EventStatus).sort()).toEqual([
      "Canceled",
      "Scheduled",
      "Started",
    ]);
    expect(quota(r)).toEqual(["14", "00:00:05"]);
  });

  it("pages by $top with an opaque $skipToken bound to the query's subscriptions, each page one query", async () => {
    threeEvents();
    const first = await ask([sub()], { top: 2 });
    const body = first.body as { count: number; totalRecords: number; $skipToken: string };
    expect([body.count, body.totalRecords]).toEqual([2, 3]);
    const second = await ask([sub()], { top: 2, skipToken: body.$skipToken });
    expect(second.body).toMatchObject({ count: 1, totalRecords: 3 });
    expect(second.body).not.toHaveProperty("$skipToken");
    const ids = [first, second].flatMap((p) =>
      (p.body as { data: Array<{ id: string }> }).data.map((d) => d.id),
    );
    expect(new Set(ids).size).toBe(3);
    expect(quota(second)[0]).toBe("13");
    const elsewhere = await ask([sub(), OTHER_SUB], { top: 2, skipToken: body.$skipToken });
    expect([elsewhere.status, detail(elsewhere)]).toEqual([400, "InvalidSkipToken"]);
    const forged = await ask([sub()], { skipToken: "bm90LWEtdG9rZW4" });
    expect([forged.status, errorCode(forged), detail(forged)]).toEqual([
      400,
      "BadRequest",
      "InvalidSkipToken",
    ]);
  });

  it("answers only for the subscriptions asked about that the caller may query, 403 when none", async () => {
    threeEvents();
    const none = await ask([OTHER_SUB]);
    expect([none.status, errorCode(none)]).toEqual([403, "AuthorizationFailed"]);
    expect(quota(none)[0]).toBe("14");
    const mixed = await ask([OTHER_SUB, sub().toUpperCase()]);
    expect(mixed.body).toMatchObject({ totalRecords: 3 });
  });

  it("filters rows by the read of the resource each event is scoped to, and refuses a caller with no Resource Graph action", async () => {
    threeEvents();
    const me = arm.sim.identity.principalId;
    const scope = arm.sim.arm.resourceGroupId();
    arm.sim.arm.revoke({ principalId: me, scope });
    expect((await ask()).status).toBe(403); // Monitoring Reader at the subscription: alerts only
    const actions = [
      "Microsoft.ResourceGraph/resources/read",
      "Microsoft.Compute/availabilitySets/read",
    ];
    arm.sim.arm.grant({ principalId: me, scope, role: "control plane", actions });
    const sets = await ask();
    expect(sets.body).toMatchObject({ totalRecords: 2 });
    expect(JSON.stringify(sets.body)).not.toContain("virtualMachineScaleSets");
    arm.sim.arm.grant({
      principalId: me,
      scope,
      role: "events",
      actions: ["Microsoft.Compute/virtualMachineScaleSets/read"],
    });
    expect((await ask()).body).toMatchObject({ totalRecords: 3 });
  });

  it("refuses any other query, table results, a $top out of 1..1000, and another api-version", async () => {
    const base = resourceGraphRequest([sub()]) as { options: object };
    const other = await query({ ...base, query: "Resources | project id" });
    expect([other.status, errorCode(other), detail(other)]).toEqual([
      400,
      "BadRequest",
      "InvalidQuery",
    ]);
    expect((other.body as { error: { message: string } }).error.message).toMatch(
      /^Please provide below info when asking for support: timestamp = .+, correlationId = .+\.$/,
    );
    const spaced = await query({
      ...base,
      query: `  ${SCHEDULED_EVENTS_QUERY.replace(/ /g, "\n  ")} `,
    });
    expect(spaced.status).toBe(200);
    const table = await query({ ...base, options: { resultFormat: "table" } });
    expect([table.status, detail(table)]).toEqual([400, "InvalidRequestContent"]);
    for (const $top of [0, 1001]) {
      const r = await query({ ...base, options: { resultFormat: "objectArray", $top } });
      expect([r.status, detail(r)]).toEqual([400, "InvalidRequestContent"]);
    }
    const old = await query(
      base,
      arm.token,
      PATH.replace(RESOURCE_GRAPH_API_VERSION, "2021-03-01"),
    );
    expect([old.status, errorCode(old)]).toEqual([400, "NoRegisteredProviderFound"]);
    const anonymous = await query(base, null);
    expect([anonymous.status, errorCode(anonymous)]).toEqual([401, "AuthenticationFailed"]);
    expect(quota(anonymous)).toEqual([null, null]); // ARM refused it before Resource Graph counted
  });

  it("throttles a caller past its quota with 429 RateLimiting and the reset time, each caller in its own window", async () => {
    arm.sim.arm.setResourceGraphQuota({ limit: 2, windowMs: 60_000 });
    expect(quota(await ask())).toEqual(["1", "00:01:00"]);
    expect(quota(await ask())[0]).toBe("0");
    const throttled = await ask();
    expect([throttled.status, errorCode(throttled), detail(throttled)]).toEqual([
      429,
      "RateLimiting",
      "RateLimiting",
    ]);
    expect(quota(throttled)[0]).toBe("0");
    expect(quota(throttled)[1]).toMatch(/^00:0[01]:\d\d$/);
    expect(throttled.headers.get("retry-after")).toBeNull();

    const other = arm.sim.arm.registerIdentity({ name: "rg-reader" });
    arm.sim.arm.grant({ principalId: other.principalId, actions: ["*/read"] });
    const token = await armToken(arm.sim.identity, { clientId: other.clientId });
    const theirs = await query(resourceGraphRequest([sub()]), token);
    expect([theirs.status, ...quota(theirs)]).toEqual([200, "1", "00:01:00"]);
  });

  it("gives the quota back when the window ends (real time)", async () => {
    // A second, so the two first queries fall in one window even on a busy machine.
    arm.sim.arm.setResourceGraphQuota({ limit: 1, windowMs: 1_000 });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    const again = await ask();
    expect([again.status, ...quota(again)]).toEqual([200, "0", "00:00:01"]);
  });

  it("answers injected ARM faults like any other route", async () => {
    arm.sim.arm.injectFault({ status: 503, pathContains: "/Microsoft.ResourceGraph/" });
    expect((await ask()).status).toBe(503);
    expect((await ask()).status).toBe(200);
  });
});
