import { acknowledgeRefusal } from "@quiesce/core";
import { useContractArm } from "@quiesce/testkit/arm";
import { describe, expect, it } from "vitest";
import { closeChangeRecord, putChangeRecord } from "../../functions/src/arm/changeRecord";
import { acknowledgeScheduledEvent } from "../../functions/src/arm/index";
import { acquirePolicyToken, withPolicyToken } from "../../functions/src/arm/policyToken";
import { createExample, fixture, type Json, pick, shape } from "./changeSafetyFixtures";

/**
 * The fabric simulator's Azure Change Safety against the same fixtures as the product's clients
 * (change-safety.test.ts): its deny, its tokens and its change records answer with the owners'
 * shapes, and the product reads them as it reads the owners', so neither drifts from Azure along
 * with the other.
 */

describe("the fabric simulator's Change Safety answers like the fixtures", () => {
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
  const schedule = () => c.sim.schedule({ eventType: "Reboot", group: "avset-web" }).eventId;

  it("denies a write without a token with the shape the SDKs parse, and the product reads it deniedByPolicy", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny" });
    const id = schedule();
    const res = await fetch(
      `${c.sim.armUrl}${c.sim.arm.resourceGroupId()}/providers/Microsoft.Compute/availabilitySets/avset-web/providers/Microsoft.Maintenance/scheduledevents/${id}/acknowledge?api-version=2025-11-01`,
      { method: "POST", headers: { authorization: `Bearer ${c.token}` } },
    );
    const body = (await res.json()) as Json;
    expect(res.status).toBe(403);
    const want = fixture("azapi.missing-policy-token.json").error;
    expect(body.error.code).toBe(want.code);
    expect(shape(body.error.additionalInfo[0].info.evaluationDetails)).toEqual(
      shape(want.additionalInfo[0].info.evaluationDetails),
    );
    expect(body.error.additionalInfo[0].type).toBe("PolicyViolation");
    const r = await acknowledgeScheduledEvent(c.arm, scope(), id);
    expect(r.ok ? "approved" : acknowledgeRefusal(r.error).kind).toBe("deniedByPolicy");
  });

  it("issues a token shaped like the spec example's, and the same write with it is approved", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny" });
    const id = schedule();
    const r = await acknowledgeScheduledEvent(withPolicyToken(c.arm), scope(), id);
    expect(r.ok).toBe(true);
    const issued = c.sim.arm.changeSafety();
    expect(issued.tokens).toHaveLength(1);
    expect(issued.guarded).toHaveLength(1);
    const answer = await acquirePolicyToken(c.arm, {
      subscriptionId: scope().subscriptionId,
      uri: "https://management.azure.com/x?api-version=1",
      httpMethod: "POST",
    });
    expect(answer.ok && answer.value?.token.startsWith("PoP ")).toBe(true);
  });

  it("audits a write without a token under Audit and lets it through", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Audit" });
    const r = await acknowledgeScheduledEvent(c.arm, scope(), schedule());
    expect(r.ok).toBe(true);
    expect(c.sim.arm.changeSafety().audited).toHaveLength(1);
  });

  it("answers a change record's create and update with the spec examples' shapes", async () => {
    const s = scope();
    const spec = {
      changeType: "ManualTouch",
      rolloutType: "Normal",
      description: "d",
      comments: "c",
      targets: [{ resourceName: "web-0", resourceType: "Microsoft.Compute/virtualMachines" }],
      anticipatedStartTime: new Date(0),
      anticipatedEndTime: new Date(3_600_000),
      additionalData: {},
    } as const;
    const made = await putChangeRecord(c.arm, s, "quiesce-test", spec);
    expect(made.ok && made.value.status).toBe("NotApplicable");
    const record = c.sim.arm.changeSafety().records[0] as Json;
    const want = createExample.responses["201"].body;
    expect(Object.keys(record).sort()).toEqual(
      expect.arrayContaining(["id", "name", "properties", "type"]),
    );
    expect(
      shape(
        pick(record.properties, [
          "provisioningState",
          "status",
          "changeType",
          "rolloutType",
          "anticipatedStartTime",
          "anticipatedEndTime",
          "stageMapSnapshot",
        ]),
      ),
    ).toEqual(
      shape(
        pick(want.properties, [
          "provisioningState",
          "status",
          "changeType",
          "rolloutType",
          "anticipatedStartTime",
          "anticipatedEndTime",
          "stageMapSnapshot",
        ]),
      ),
    );
    const closed = await closeChangeRecord(c.arm, record.id, {
      comments: "Completed: done",
      endedAt: new Date(1_000),
    });
    expect(closed.ok).toBe(true);
    expect((c.sim.arm.changeSafety().records[0] as Json).properties.comments).toBe(
      "Completed: done",
    );
  });

  it("refuses a token without a change reference when the policy wants one, as a Failed result", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny", requireChangeReference: true });
    const r = await acknowledgeScheduledEvent(withPolicyToken(c.arm), scope(), schedule());
    expect(r).toMatchObject({ ok: false, error: { code: "PolicyTokenRefused" } });
  });
});
