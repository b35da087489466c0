import { acknowledgeRefusal } from "@quiesce/core";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeChangeRecord, putChangeRecord } from "../../functions/src/arm/changeRecord";
import {
  type ArmClient,
  acknowledgeScheduledEvent,
  createArmClient,
} from "../../functions/src/arm/index";
import {
  acquirePolicyToken,
  POLICY_TOKEN_API_VERSION,
  POLICY_TOKEN_HEADER,
  withPolicyToken,
} from "../../functions/src/arm/policyToken";
import {
  acquireExample,
  createExample,
  fixture,
  pick,
  shape,
  updateExample,
} from "./changeSafetyFixtures";

/**
 * The product's Azure Change Safety clients against the owners' artifacts
 * (fixtures/change-safety/SOURCES.md): the acquirePolicyToken and change record examples of the
 * REST specs, and the deny and acquire answers Terraform's AzAPI provider is tested with, served
 * from a loopback server. The simulator's side: change-safety-simulator.test.ts.
 */

const SUB = acquireExample.parameters.subscriptionId as string;
const ACQUIRE = `/subscriptions/${SUB}/providers/Microsoft.Authorization/acquirePolicyToken`;

describe("the product's Change Safety clients read the owners' answers", () => {
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

  const example = acquireExample.parameters.parameters.operation;
  const acquire = () =>
    acquirePolicyToken(arm, {
      subscriptionId: SUB,
      uri: example.uri,
      httpMethod: example.httpMethod,
    });

  it("asks at the spec example's route and api-version with its body, and reads its token", async () => {
    expect(acquireExample.parameters["api-version"]).toBe(POLICY_TOKEN_API_VERSION);
    stub.on("POST", ACQUIRE, { status: 200, body: acquireExample.responses["200"].body });
    const r = await acquire();
    const [sent] = stub.requestsTo("POST", ACQUIRE);
    expect(sent?.query).toEqual({ "api-version": POLICY_TOKEN_API_VERSION });
    expect(JSON.parse(sent?.body ?? "")).toEqual(acquireExample.parameters.parameters);
    expect(r).toEqual({
      ok: true,
      value: {
        token: acquireExample.responses["200"].body.token,
        tokenId: acquireExample.responses["200"].body.tokenId,
      },
    });
  });

  it("reads a Failed acquire as a refusal with the policies' messages, and no token as none wanted", async () => {
    stub.on("POST", ACQUIRE, { status: 200, body: fixture("azapi.acquire-failed.json") });
    const refused = await acquire();
    expect(refused).toMatchObject({ ok: false, error: { code: "PolicyTokenRefused" } });
    if (refused.ok) return;
    expect(refused.error.message).toContain("Create validation failed");
    expect(acknowledgeRefusal(refused.error)).toMatchObject({
      kind: "deniedByPolicy",
      giveUp: true,
    });
    stub.on("POST", ACQUIRE, {
      status: 200,
      body: fixture("azapi.acquire-succeeded-without-token.json"),
    });
    expect(await acquire()).toEqual({ ok: true, value: null });
  });

  it.each(["azapi.missing-policy-token.json", "azapi.missing-change-reference.json"])(
    "reads a write denied with %s as deniedByPolicy, given up",
    async (file) => {
      const eventId = "5E3D1A4C-9B7F-4C2E-8D6A-1F0B2C3D4E5F";
      const path = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/as/providers/Microsoft.Maintenance/scheduledevents/${eventId}/acknowledge`;
      stub.on("POST", path, { status: 403, body: fixture(file) });
      const r = await acknowledgeScheduledEvent(
        arm,
        { subscriptionId: SUB, resourceGroup: "rg", resourceType: "availabilitySets", name: "as" },
        eventId,
      );
      expect(r).toMatchObject({
        ok: false,
        error: { status: 403, code: "RequestDisallowedByPolicy" },
      });
      if (!r.ok)
        expect(acknowledgeRefusal(r.error)).toMatchObject({ kind: "deniedByPolicy", giveUp: true });
    },
  );

  it("sends each write with a token acquired for exactly it, and reads without one", async () => {
    const token = acquireExample.responses["200"].body.token as string;
    stub.on("POST", ACQUIRE, { status: 200, body: acquireExample.responses["200"].body });
    const path = `/subscriptions/${SUB}/providers/Microsoft.ChangeSafety/changeRecords/r1`;
    stub.on("PATCH", path, { status: 200, body: updateExample.responses["200"].body });
    stub.on("GET", path, { status: 200, body: updateExample.responses["200"].body });
    const guarded = withPolicyToken(
      arm,
      "/subscriptions/x/providers/Microsoft.ChangeSafety/changeRecords/c",
    );
    await guarded.request({
      method: "GET",
      path,
      apiVersion: "2026-01-01-preview",
      schema: z.unknown(),
      operation: "read",
    });
    expect(stub.requestsTo("POST", ACQUIRE)).toHaveLength(0);
    const closed = await closeChangeRecord(guarded, path, {
      comments: "Completed",
      endedAt: new Date(0),
    });
    expect(closed.ok).toBe(true);
    const [asked] = stub.requestsTo("POST", ACQUIRE);
    const body = JSON.parse(asked?.body ?? "");
    expect(body.operation.httpMethod).toBe("PATCH");
    expect(body.operation.uri).toBe(`${stub.url}${path}?api-version=2026-01-01-preview`);
    expect(body.changeReference).toBe(
      "/subscriptions/x/providers/Microsoft.ChangeSafety/changeRecords/c",
    );
    const [patched] = stub.requestsTo("PATCH", path);
    expect(patched?.headers[POLICY_TOKEN_HEADER]).toBe(token);
  });

  it("creates a change record and reads the spec example's 201 and 200, then closes it", async () => {
    const p = createExample.parameters;
    const path = `/subscriptions/${p.subscriptionId}/providers/Microsoft.ChangeSafety/changeRecords/${p.changeRecordName}`;
    stub.on("PUT", path, { status: 201, body: createExample.responses["201"].body });
    const spec = {
      changeType: "ManualTouch",
      rolloutType: "Normal",
      description: "d",
      comments: "c",
      targets: [
        {
          resourceId:
            "/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachines/vm",
        },
      ],
      anticipatedStartTime: new Date("2025-07-09T07:30:17.815Z"),
      anticipatedEndTime: new Date("2025-07-09T09:30:17.815Z"),
      additionalData: {},
    } as const;
    const made = await putChangeRecord(
      arm,
      { subscriptionId: p.subscriptionId },
      p.changeRecordName,
      spec,
    );
    expect(made).toEqual({
      ok: true,
      value: { id: createExample.responses["201"].body.id, status: "Initialized" },
    });
    const sent = JSON.parse(stub.requestsTo("PUT", path)[0]?.body ?? "");
    // Every property the spec's example sends that the model requires, with the same kinds.
    const required = [
      "changeType",
      "rolloutType",
      "changeDefinition",
      "anticipatedStartTime",
      "anticipatedEndTime",
    ];
    expect(shape(pick(sent.properties, required))).toMatchObject(
      shape(
        pick(p.resource.properties, [
          "changeType",
          "rolloutType",
          "anticipatedStartTime",
          "anticipatedEndTime",
        ]),
      ) as object,
    );
    expect(Object.keys(sent.properties.changeDefinition).sort()).toEqual([
      "details",
      "kind",
      "name",
    ]);
  });
});
