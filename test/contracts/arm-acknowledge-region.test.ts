import { readFileSync } from "node:fs";
import { join } from "node:path";
import { armToken } from "@quiesce/fabric-simulator";
import { useContractArm } from "@quiesce/testkit/arm";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ArmClient, createArmClient, MAINTENANCE_API_VERSION } from "../../functions/src/arm";
import { PROBE_EVENT_ID, probeAcknowledge } from "../../functions/src/arm/regionProbe";
import { supportFromAnswer } from "../../functions/src/controlPlane/regionSupport";

/**
 * Where Azure offers approval through ARM, against the owners' artifacts
 * (fixtures/arm-acknowledge/SOURCES.md): the probe (an acknowledge of the all-zero GUID, the id
 * the Azure CLI's own live scenario acknowledges) read from each answer the CLI's and Azure
 * PowerShell's tests are written for, served from a loopback server; and the fabric simulator's
 * per-region switch answering the same shapes. Which answer a real region gives is not verified.
 */

const dir = join(__dirname, "fixtures", "arm-acknowledge");
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(dir, name), "utf8"));

describe("the probe reads the owners' answers as the region's availability", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    arm = createArmClient({
      endpoint: stub.url,
      credential: recordingCredential(),
      maxAttempts: 1,
    });
  });
  afterEach(() => arm.close());
  const scope = {
    subscriptionId: "00000000-0000-0000-0000-0000000000aa",
    resourceGroup: "rg-web",
    resourceType: "virtualMachineScaleSets",
    name: "vmss-api",
  } as const;
  const path = `/subscriptions/${scope.subscriptionId}/resourceGroups/rg-web/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-api/providers/Microsoft.Maintenance/scheduledevents/${PROBE_EVENT_ID}/acknowledge`;

  const cases: Array<[number, string | null, string]> = [
    [404, "powershell.approve-not-found.json", "available"],
    [404, "cli.list-not-found-response.json", "available"],
    [207, "cli.acknowledge-response.json", "available"],
    [405, "cli.list-not-implemented-response.json", "notAvailable"],
    [400, "cli.list-bad-request-response.json", "unknown"],
    [500, "cli.list-internal-error-response.json", "unknown"],
    [403, null, "unknown"],
  ];
  it.each(cases)("%i %s says %s", async (status, file, availability) => {
    stub.on(
      "POST",
      path,
      file
        ? { status, body: fixture(file) }
        : { status, body: { error: { code: "AuthorizationFailed", message: "no" } } },
    );
    expect(supportFromAnswer(await probeAcknowledge(arm, scope))).toBe(availability);
    const [sent] = stub.requestsTo("POST", path);
    expect(sent?.query).toEqual({ "api-version": MAINTENANCE_API_VERSION });
    expect(sent?.body).toBe("");
  });
});

describe("the fabric simulator's per-region switch answers like the fixtures", () => {
  const c = useContractArm();

  const scope = () => {
    const [, sub, , group] = c.sim.arm.resourceGroupId().split("/").filter(Boolean);
    return {
      subscriptionId: sub as string,
      resourceGroup: group as string,
      resourceType: "availabilitySets",
      name: "avset-web",
    } as const;
  };
  const region = () => c.sim.state().topology.location;

  it("answers the probe 404 InvalidScheduledEventId where the region acknowledges", async () => {
    c.sim.arm.setMaintenance({ unsupportedRegions: ["someotherregion"] });
    const r = await probeAcknowledge(c.arm, scope());
    expect(r).toMatchObject({ ok: false, status: 404, code: "InvalidScheduledEventId" });
    expect(supportFromAnswer(r)).toBe("available");
  });

  it("answers 405 NotImplemented, as the CLI's fixture, in a region named unsupported (any case), and approves nothing there", async () => {
    const EVENT = "5E3D1A4C-9B7F-4C2E-8D6A-1F0B2C3D4E5F";
    c.sim.schedule({ eventId: EVENT, eventType: "Reboot", group: "avset-web" });
    c.sim.arm.setMaintenance({ unsupportedRegions: [region().toUpperCase()] });
    const probed = await probeAcknowledge(c.arm, scope());
    expect(probed).toMatchObject({ ok: false, status: 405, code: "NotImplemented" });
    expect(supportFromAnswer(probed)).toBe("notAvailable");
    const token = await armToken(c.sim.identity);
    const res = await fetch(
      `${c.sim.armUrl}${c.sim.arm.resourceGroupId()}/providers/Microsoft.Compute/availabilitySets/avset-web/providers/Microsoft.Maintenance/scheduledevents/${EVENT}/acknowledge?api-version=${MAINTENANCE_API_VERSION}`,
      { method: "POST", headers: { authorization: `Bearer ${token}` } },
    );
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 405,
      body: fixture("cli.list-not-implemented-response.json"),
    });
    expect(c.sim.event(EVENT)?.phase).toBe("Scheduled");
  });
});
