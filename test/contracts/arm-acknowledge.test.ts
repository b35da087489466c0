import { readFileSync } from "node:fs";
import { join } from "node:path";
import { acknowledgeRefusal } from "@quiesce/core";
import { useContractArm } from "@quiesce/testkit/arm";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ArmClient,
  acknowledgeScheduledEvent,
  createArmClient,
  MAINTENANCE_API_VERSION,
} from "../../functions/src/arm/index";

/**
 * The ARM acknowledge against its owners' artifacts (fixtures/arm-acknowledge/SOURCES.md): the
 * REST spec's examples and the answers the Azure CLI's and Azure PowerShell's own tests and docs
 * are written for. The product's client must read each into the right outcome, served as ARM from
 * a loopback server, and the fabric simulator must answer each situation with the same status and
 * body shape, so that neither can drift from Azure along with the other.
 */

const dir = join(__dirname, "fixtures", "arm-acknowledge");
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(dir, name), "utf8"));
const specExample = (version: string) =>
  fixture(`ScheduledEvents_Acknowledge.${version}.json`) as {
    parameters: Record<string, string>;
    responses: { "200": { body: unknown } };
  };

const EVENT = "5E3D1A4C-9B7F-4C2E-8D6A-1F0B2C3D4E5F";
const SPEC_VERSIONS = ["2023-10-01-preview", "2025-11-01", "2026-02-01-preview"];

/** A JSON value's shape: the same names (with their case) and kinds of values, not the values. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return typeof v;
}

describe("the product's acknowledge client reads the owners' answers", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    // One attempt: the retried statuses are the client's business (client.retry.test.ts).
    arm = createArmClient({
      endpoint: stub.url,
      credential: recordingCredential(),
      maxAttempts: 1,
    });
  });
  afterEach(() => arm.close());

  const example = specExample(MAINTENANCE_API_VERSION).parameters;
  const scope = {
    subscriptionId: example.subscriptionId as string,
    resourceGroup: example.resourceGroupName as string,
    resourceType: "virtualMachineScaleSets",
    name: example.resourceName as string,
  } as const;
  const eventId = example.scheduledEventId as string;
  const path = `/subscriptions/${scope.subscriptionId}/resourceGroups/${scope.resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${scope.name}/providers/Microsoft.Maintenance/scheduledevents/${eventId}/acknowledge`;
  const answer = async (status: number, body?: unknown) => {
    stub.on("POST", path, body === undefined ? { status } : { status, body });
    return acknowledgeScheduledEvent(arm, scope, eventId);
  };

  it("sends the api-version whose spec example is vendored, on the example's route, with no body", async () => {
    expect(specExample(MAINTENANCE_API_VERSION).parameters["api-version"]).toBe(
      MAINTENANCE_API_VERSION,
    );
    await answer(200, specExample(MAINTENANCE_API_VERSION).responses["200"].body);
    const [sent] = stub.requestsTo("POST", path);
    expect(sent?.query).toEqual({ "api-version": MAINTENANCE_API_VERSION });
    expect(sent?.body).toBe("");
  });

  it.each(SPEC_VERSIONS)("reads the %s example's 200 as approved", async (version) => {
    const r = await answer(200, specExample(version).responses["200"].body);
    expect(r).toEqual({
      ok: true,
      value: { status: 200, value: "Successfully Approved", attempts: 1 },
    });
  });

  it("reads the CLI's 200 and an empty 204 as approved", async () => {
    expect((await answer(200, fixture("cli.success-response.json"))).ok).toBe(true);
    expect((await answer(204)).ok).toBe(true);
  });

  // status, fixture, ARM's code as read, what it means, whether the control plane gives up.
  const refusals: Array<[number, string, string, string, boolean]> = [
    [207, "cli.acknowledge-response.json", "InvalidScheduledEventId", "eventNotFound", false],
    [207, "cli.list-multi-status-response.json", "NotFound", "eventNotFound", false],
    [404, "cli.acknowledge-response.json", "InvalidScheduledEventId", "eventNotFound", false],
    [404, "cli.list-not-found-response.json", "InvalidScheduledEventId", "eventNotFound", false],
    [404, "powershell.approve-not-found.json", "InvalidScheduledEventId", "eventNotFound", false],
    [405, "cli.list-not-implemented-response.json", "NotImplemented", "notSupportedInRegion", true],
    [400, "cli.list-bad-request-response.json", "BadRequest", "badRequest", true],
    [400, "cli.acknowledge-response.json", "InvalidScheduledEventId", "badRequest", true],
    [500, "cli.list-internal-error-response.json", "InternalServerError", "transient", false],
    [500, "cli.acknowledge-response.json", "InvalidScheduledEventId", "transient", false],
  ];
  it.each(refusals)(
    "reads %i %s as not approved: %s, %s",
    async (status, file, code, kind, giveUp) => {
      const r = await answer(status, fixture(file));
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toMatchObject({ status, code });
      expect(acknowledgeRefusal(r.error)).toMatchObject({ kind, giveUp });
    },
  );

  it("reads any 207 as not approved, even one without an error body", async () => {
    const r = await answer(207, { value: "Successfully Approved" });
    expect(r).toMatchObject({ ok: false, error: { status: 207, code: "MultiStatusResponse" } });
  });
});

describe("the fabric simulator's acknowledge answers like the fixtures", () => {
  const c = useContractArm();

  const rg = () => c.sim.arm.resourceGroupId();
  const scopePath = () =>
    `${rg()}/providers/Microsoft.Compute/availabilitySets/avset-web/providers/Microsoft.Maintenance/scheduledevents`;
  async function post(pathAndQuery: string, body?: unknown) {
    const res = await fetch(`${c.sim.armUrl}${pathAndQuery}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${c.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
  }
  const ack = (id: string, version = MAINTENANCE_API_VERSION) =>
    post(`${scopePath()}/${id}/acknowledge?api-version=${version}`);
  const ackList = (ids: string[]) =>
    post(`${scopePath()}?api-version=${MAINTENANCE_API_VERSION}`, { value: ids });
  /** What the product makes of the simulator's answer, as of a fixture's. */
  const productReads = async (id: string) => {
    const [, sub, , group] = rg().split("/").filter(Boolean);
    const r = await acknowledgeScheduledEvent(
      c.arm,
      {
        subscriptionId: sub as string,
        resourceGroup: group as string,
        resourceType: "availabilitySets",
        name: "avset-web",
      },
      id,
    );
    return r.ok ? "approved" : acknowledgeRefusal(r.error).kind;
  };
  const schedule = () =>
    c.sim.schedule({ eventId: EVENT, eventType: "Reboot", group: "avset-web" });

  it.each(SPEC_VERSIONS)(
    "approves with the spec example's 200 body at %s, and the product reads it approved",
    async (version) => {
      schedule();
      expect(await ack(EVENT, version)).toEqual({
        status: 200,
        body: specExample(version).responses["200"].body,
      });
      c.sim.reset();
      schedule();
      expect(await productReads(EVENT)).toBe("approved");
    },
  );

  it("answers an id it does not know 404 as Approve-AzScheduledEvent's help shows, or 207 as the CLI's tests model", async () => {
    const unknown = "0B1C2D3E-4F50-4617-8293-A4B5C6D7E8F9";
    expect(await ack(unknown)).toEqual({
      status: 404,
      body: fixture("powershell.approve-not-found.json"),
    });
    expect(await productReads(unknown)).toBe("eventNotFound");

    c.sim.arm.setMaintenance({ unknownEventStatus: 207 });
    const multi = await ack(unknown);
    expect(multi.status).toBe(207);
    expect(shape(multi.body)).toEqual(shape(fixture("cli.acknowledge-response.json")));
    expect(multi.body).toMatchObject({ Error: { Code: "InvalidScheduledEventId" } });
    expect(await productReads(unknown)).toBe("eventNotFound");
  });

  it("plays an RP that does not know the events yet: a scheduled event is InvalidScheduledEventId and stays Scheduled", async () => {
    schedule();
    c.sim.arm.setMaintenance({ knowsEvents: false });
    expect(await ack(EVENT)).toEqual({
      status: 404,
      body: fixture("powershell.approve-not-found.json"),
    });
    expect(await productReads(EVENT)).toBe("eventNotFound");
    expect(c.sim.event(EVENT)?.phase).toBe("Scheduled");
  });

  it("plays a region without the feature: 405 NotImplemented on both forms, as the CLI's fixture", async () => {
    schedule();
    c.sim.arm.setMaintenance({ supportedInRegion: false });
    const expected = { status: 405, body: fixture("cli.list-not-implemented-response.json") };
    expect(await ack(EVENT)).toEqual(expected);
    expect(await ackList([EVENT])).toEqual(expected);
    expect(await productReads(EVENT)).toBe("notSupportedInRegion");
    expect(c.sim.event(EVENT)?.phase).toBe("Scheduled");
  });

  it("answers an event id that is not a GUID 400 BadRequest, as the CLI's fixture", async () => {
    const expected = { status: 400, body: fixture("cli.list-bad-request-response.json") };
    expect(await ack("not-a-guid")).toEqual(expected);
    expect(await ackList(["not-a-guid"])).toEqual(expected);
    expect(await productReads("not-a-guid")).toBe("badRequest");
  });

  it("answers the list form like the CLI's fixtures: 207 per unknown id, 404 when none is known", async () => {
    schedule();
    const unknown = "0B1C2D3E-4F50-4617-8293-A4B5C6D7E8F9";
    const partial = await ackList([EVENT, unknown]);
    expect(partial.status).toBe(207);
    expect(shape(partial.body)).toEqual(shape(fixture("cli.list-multi-status-response.json")));
    expect(partial.body).toMatchObject({
      error: {
        details: [{ target: unknown, code: "NotFound", message: "Scheduled event not found" }],
      },
    });
    expect(await ackList([unknown])).toEqual({
      status: 404,
      body: fixture("cli.list-not-found-response.json"),
    });
  });
});
