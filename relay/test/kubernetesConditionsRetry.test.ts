import { writeFileSync } from "node:fs";
import { systemClock } from "@quiesce/protocol";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { emptyState, type RelayState } from "../src/decisions/state";
import { connectKubernetes } from "../src/kubernetes/client";
import { ConditionsWriter } from "../src/kubernetes/conditionsWriter";
import { silentLogger } from "../src/log";
import { type CannedAnswer, CannedKubernetes } from "./support/cannedKubernetes";
import { SS } from "./support/kubernetes";
import { tempDir } from "./support/wait";

/**
 * The conditions writer against answers the fabric simulator does not give on its own: a 500
 * and a 409 on PATCH nodes/{name}/status are retried (the 409 decided again on a fresh read),
 * a 404 (an API server that does not serve the subresource) is said once and not retried, and a
 * node whose providerID is another VM's is never written. Through the real client-node.
 */

const resourceId = `/subscriptions/s/resourceGroups/MC_rg_aks_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/${SS}/virtualMachines/0`;
const NAME = `${SS}000000`;
const nodeBody = (rv: string) => ({
  kind: "Node",
  apiVersion: "v1",
  metadata: { name: NAME, uid: "u", resourceVersion: rv },
  spec: { providerID: `azure://${resourceId}` },
  status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }] },
});
const status = (code: number, reason: string) => ({
  status: code,
  body: { kind: "Status", apiVersion: "v1", status: "Failure", reason, message: reason, code },
});

let patchAnswers: CannedAnswer[] = [];
let api: CannedKubernetes;
let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  api = await new CannedKubernetes({
    "GET /api/v1/nodes": () => ({
      status: 200,
      body: { kind: "NodeList", apiVersion: "v1", metadata: {}, items: [nodeBody("7")] },
    }),
    [`GET /api/v1/nodes/${NAME}`]: () => ({ status: 200, body: nodeBody("8") }),
    [`PATCH /api/v1/nodes/${NAME}/status`]: () =>
      patchAnswers.shift() ?? { status: 200, body: nodeBody("9") },
  }).start();
  dir = await tempDir();
  writeFileSync(`${dir.path}/token`, "canned-token");
});
afterAll(async () => {
  await api?.stop();
  await dir?.remove();
});
beforeEach(() => {
  api.requests.length = 0;
});

const warnings: string[] = [];
const log = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) };
const writer = () =>
  new ConditionsWriter(
    () => connectKubernetes({ apiUrl: api.url, tokenFile: `${dir.path}/token`, caFile: "none" }),
    log,
    systemClock,
    { baseMs: 10, maxMs: 20, jitter: "equal" },
  );
const scheduled = (): RelayState => ({
  ...emptyState(),
  events: Object.assign(Object.create(null), {
    e1: {
      eventId: "E1",
      firstSeenAt: "2026-11-27T10:00:00.000Z",
      event: {
        EventId: "E1",
        EventType: "Freeze",
        Resources: [`${SS}_0`],
        EventStatus: "Scheduled",
        NotBefore: "Fri, 27 Nov 2026 10:15:00 GMT",
      },
    },
  }),
});
const vm = (id = resourceId) => ({ name: `${SS}_0`, vmId: "v", resourceId: id });
const patches = () => api.requests.filter((r) => r.method === "PATCH");

it("retries a 500 with backoff and a 409 on a fresh read, as a strategic merge patch", async () => {
  patchAnswers = [status(500, "InternalError"), status(409, "Conflict")];
  warnings.length = 0;
  const w = writer();
  w.observe(scheduled(), vm(), new AbortController().signal);
  await w.settled();
  expect(patches()).toHaveLength(3);
  for (const p of patches()) expect(p.contentType).toBe("application/strategic-merge-patch+json");
  const bodies = patches().map((p) => JSON.parse(p.body));
  // The 409 was decided again on the node read afresh: its resourceVersion.
  expect(bodies.map((b) => b.metadata.resourceVersion)).toEqual(["7", "7", "8"]);
  expect(bodies[2].status.conditions).toEqual([
    expect.objectContaining({
      type: "MaintenancePlanned",
      status: "True",
      reason: "ScheduledEvent",
      message:
        "Quiesce: Azure scheduled event Freeze (EventId E1, NotBefore Fri, 27 Nov 2026 10:15:00 GMT) is Scheduled",
    }),
  ]);
  expect(warnings).toEqual(["kubernetes node conditions: write failed; retrying"]);
});

it("says a 404 once and does not retry it", async () => {
  warnings.length = 0;
  const w = writer();
  for (const eventType of ["Freeze", "Reboot"]) {
    patchAnswers = [status(404, "NotFound")];
    const s = scheduled();
    const e = s.events.e1;
    if (e) s.events.e1 = { ...e, event: { ...e.event, EventType: eventType } };
    w.observe(s, vm(), new AbortController().signal);
    await w.settled();
  }
  expect(patches()).toHaveLength(2);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/needs nodes\/status patch/);
});

it("writes nothing when no node has this VM's providerID", async () => {
  const w = writer();
  w.observe(scheduled(), vm(`${resourceId}0`), new AbortController().signal);
  await w.settled();
  expect(patches()).toEqual([]);
  expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/v1/nodes"]);
});
