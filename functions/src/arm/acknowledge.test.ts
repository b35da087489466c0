import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ArmClient, acknowledgeScheduledEvent, createArmClient } from "./index";

// The acknowledge call: its route on the scope, its api-version, no body; refusals surfaced.

const RG = "/subscriptions/sub-1/resourceGroups/rg-web/providers/Microsoft.Compute";

const stub = useHttpStub();
let arm: ArmClient;
beforeEach(() => {
  arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
});
afterEach(() => arm.close());

describe("acknowledging a scheduled event", () => {
  const scope = {
    subscriptionId: "sub-1",
    resourceGroup: "rg-web",
    resourceType: "availabilitySets",
    name: "avset web",
  } as const;
  const eventId = "602D9444-D2CD-49C7-8624-8643E7171297";
  const path = `${RG}/availabilitySets/avset%20web/providers/Microsoft.Maintenance/scheduledevents/${eventId}/acknowledge`;

  it("POSTs to the scope's Maintenance acknowledge route with the GA 2025-11-01 and no body", async () => {
    stub.on("POST", path, { status: 200, body: { value: "Successfully Approved" } });
    const r = await acknowledgeScheduledEvent(arm, scope, eventId);
    expect(r).toEqual({
      ok: true,
      value: { status: 200, value: "Successfully Approved", attempts: 1 },
    });
    const [sent] = stub.requests;
    expect(sent?.path).toBe(path);
    expect(sent?.query).toEqual({ "api-version": "2025-11-01" });
    expect(sent?.body).toBe("");
    expect(sent?.headers["content-length"]).toBe("0");
  });

  it("surfaces a refusal with the Maintenance RP's code", async () => {
    stub.on("POST", path, {
      status: 409,
      body: { error: { code: "Conflict", message: "The event cannot be acknowledged." } },
    });
    expect(await acknowledgeScheduledEvent(arm, scope, eventId)).toMatchObject({
      ok: false,
      error: { status: 409, code: "Conflict", attempts: 1 },
    });
  });
});
