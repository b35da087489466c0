import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { getScheduledEvents, postStartRequests } from "../imds/probe";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { armCall, armToken } from "./probe";

/**
 * The Maintenance RP's acknowledge starts an event exactly as a StartRequests POST from a VM of
 * its group does (same approval path), is recorded with the approver `control-plane` and the
 * caller's principal, and refuses what it cannot acknowledge with ARM's error shape.
 */

let sim: FabricSimulator;
let token: string;
const EVENT = "5E3D1A4C-9B7F-4C2E-8D6A-1F0B2C3D4E5F";

beforeAll(async () => {
  sim = await startFabricSimulator({ clock: new ManualClock() });
  token = await armToken(sim.identity);
});
afterAll(() => sim.stop());
beforeEach(() => sim.reset());

const scope = (type: string, name: string) =>
  `${sim.arm.resourceGroupId()}/providers/Microsoft.Compute/${type}/${name}/providers/Microsoft.Maintenance/scheduledevents`;

async function post(path: string, body?: unknown) {
  const r = await armCall(sim.armUrl, token, "POST", path, body === undefined ? {} : { body });
  return { status: r.status, body: r.body as Record<string, never> };
}

/** A value without its `realMs` stamps. */
const simulatedOnly = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === "realMs" ? undefined : x)));

const ack = (type: string, name: string, id: string, v = "2025-10-01-preview") =>
  post(`${scope(type, name)}/${id}/acknowledge?api-version=${v}`);

describe("acknowledge", () => {
  it("starts the event for all its Resources exactly as a VM's StartRequests does", async () => {
    const schedule = () =>
      sim.schedule({ eventId: EVENT, eventType: "Reboot", resources: ["web-0", "web-1"] });
    schedule();
    await postStartRequests(sim.imdsUrl("web-2"), { StartRequests: [{ EventId: EVENT }] });
    const viaImds = { document: sim.document("avset-web"), event: sim.event(EVENT) };

    sim.reset();
    schedule();
    const r = await ack("availabilitySets", "avset-web", EVENT.toLowerCase());
    expect(r).toEqual({ status: 200, body: { value: "Successfully Approved" } });
    const viaArm = { document: sim.document("avset-web"), event: sim.event(EVENT) };

    expect(viaArm.document).toEqual(viaImds.document);
    expect(viaArm.document.Events[0]?.EventStatus).toBe("Started");
    // Same transitions at the same simulated instants (wall-clock stamps differ, of course).
    const { approvals, approvedBy, ...rest } = viaArm.event ?? {};
    const { approvals: _, approvedBy: __, ...restImds } = viaImds.event ?? {};
    expect(simulatedOnly(rest)).toEqual(simulatedOnly(restImds));
    expect(approvedBy).toBe("control-plane");
    expect(approvals).toEqual([
      expect.objectContaining({ vm: "control-plane", principalId: sim.identity.principalId }),
    ]);
    // Every VM of the set sees it Started, as after an IMDS approval.
    const seen = await getScheduledEvents(sim.imdsUrl("web-3"));
    expect(seen.body?.Events[0]?.EventStatus).toBe("Started");
    const entry = sim.timeline().entries.find((e) => e.kind === "armAcknowledge");
    expect(entry).toMatchObject({
      kind: "armAcknowledge",
      principalId: sim.identity.principalId,
      scope: `${sim.arm.resourceGroupId()}/providers/Microsoft.Compute/availabilitySets/avset-web`,
      outcomes: [{ eventId: EVENT.toLowerCase(), outcome: "approved" }],
    });
    expect(sim.arm.requests().at(-1)).toMatchObject({
      method: "POST",
      principalId: sim.identity.principalId,
      status: 200,
    });
  });

  it("counts like an approval from outside Resources when the event waits for every VM", async () => {
    sim.schedule({
      eventId: EVENT,
      eventType: "Redeploy",
      group: "avset-db",
      resources: ["db-0", "db-1"],
      requireAllApprovals: true,
    });
    expect((await ack("availabilitySets", "avset-db", EVENT)).status).toBe(200);
    expect(sim.event(EVENT)?.phase).toBe("Scheduled");
    for (const vm of ["db-0", "db-1"])
      await postStartRequests(sim.imdsUrl(vm), { StartRequests: [{ EventId: EVENT }] });
    expect(sim.event(EVENT)?.phase).toBe("Started");
  });

  it("takes a scale set's events at the scale set's scope, and a standalone VM's at the VM's", async () => {
    sim.schedule({ eventId: EVENT, eventType: "Freeze", resources: ["vmss-api_4"] });
    expect((await ack("virtualMachineScaleSets", "vmss-api", EVENT)).status).toBe(200);
    expect(sim.event(EVENT)?.startCause).toBe("approval");

    sim.addGroups([{ kind: "standalone", vms: ["jumpbox"] }]);
    const other = "0B1C2D3E-4F50-4617-8293-A4B5C6D7E8F9";
    sim.schedule({ eventId: other, eventType: "Reboot", resources: ["jumpbox"] });
    expect((await ack("virtualMachines", "jumpbox", other, "2023-10-01-preview")).status).toBe(200);
    expect(sim.event(other)?.phase).toBe("Started");
  });

  it("answers 404 for an id not in the scope, for an unknown scope, and 409 for a Started event", async () => {
    sim.schedule({ eventId: EVENT, eventType: "Reboot", group: "avset-web" });
    const wrongScope = await ack("availabilitySets", "avset-db", EVENT);
    expect(wrongScope).toEqual({
      status: 404,
      body: { Error: { Code: "InvalidScheduledEventId", Message: "Scheduled event not found" } },
    });
    const noScope = await ack("availabilitySets", "avset-nope", EVENT);
    expect(noScope.status).toBe(404);
    expect(noScope.body.error).toMatchObject({ code: "ResourceNotFound" });
    // A VM of an availability set is not a scope of its own: its events belong to the set.
    expect((await ack("virtualMachines", "web-0", EVENT)).status).toBe(404);
    expect(sim.event(EVENT)?.phase).toBe("Scheduled");

    sim.startNow(EVENT);
    const started = await ack("availabilitySets", "avset-web", EVENT);
    expect(started.status).toBe(409);
    expect(started.body.error).toMatchObject({ code: "Conflict" });
  });

  it("acknowledges a list, 207 with a detail per id it could not", async () => {
    const second = "0B1C2D3E-4F50-4617-8293-A4B5C6D7E8F9";
    sim.schedule({ eventId: EVENT, eventType: "Reboot", resources: ["web-0"] });
    sim.schedule({ eventId: second, eventType: "Reboot", resources: ["web-1"] });
    const list = `${scope("availabilitySets", "avset-web")}?api-version=2025-10-01-preview`;
    expect(await post(list, { value: [EVENT] })).toEqual({
      status: 200,
      body: { value: "Successfully Approved" },
    });
    const partial = await post(list, { value: [EVENT, second] });
    expect(partial.status).toBe(207);
    expect(partial.body.error).toMatchObject({
      code: "MultiStatusResponse",
      details: [{ target: EVENT, code: "Conflict" }],
    });
    expect(sim.event(second)?.phase).toBe("Started");
    expect((await post(list, { ids: [EVENT] })).status).toBe(400);
    // The list form only exists from 2025-10-01-preview.
    const old = await post(list.replace("2025-10-01-preview", "2023-10-01-preview"), {
      value: [EVENT],
    });
    expect(old.status).toBe(400);
    expect(old.body.error).toMatchObject({ code: "NoRegisteredProviderFound" });
  });

  it("requires a supported api-version and matches path segments case-insensitively", async () => {
    sim.schedule({ eventId: EVENT, eventType: "Reboot", group: "avset-web" });
    const path = `${scope("availabilitySets", "avset-web")}/${EVENT}/acknowledge`;
    const missing = await post(path);
    expect(missing).toMatchObject({
      status: 400,
      body: { error: { code: "MissingApiVersionParameter" } },
    });
    const wrong = await post(`${path}?api-version=2024-07-01`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: "NoRegisteredProviderFound" });
    const shouting = path
      .replace(
        "/providers/Microsoft.Compute/availabilitySets/avset-web",
        "/PROVIDERS/microsoft.compute/AVAILABILITYSETS/AVSET-WEB",
      )
      .replace("Microsoft.Maintenance/scheduledevents", "microsoft.maintenance/ScheduledEvents");
    expect((await post(`${shouting}?api-version=2026-06-01-preview`)).status).toBe(200);
  });
});
