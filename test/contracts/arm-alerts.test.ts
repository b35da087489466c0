import { readFileSync } from "node:fs";
import { join } from "node:path";
import { armCall } from "@quiesce/fabric-simulator";
import { useContractSim } from "@quiesce/testkit/arm";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ALERTS_API_VERSION,
  type ArmClient,
  alertRuleFiring,
  createArmClient,
} from "../../functions/src/arm/index";
import { missingPaths } from "./armShape";

/**
 * The alert-rule gate's read (Alerts Management `Alerts_GetAll`) against the REST spec's
 * `Alerts_List` example (fixtures/arm-alerts/SOURCES.md): the coordinator's parser on the
 * example's page, and the simulator's alerts compared with the example's by shape.
 */

const list = JSON.parse(
  readFileSync(join(__dirname, "fixtures", "arm-alerts", "Alerts_List.json"), "utf8"),
) as {
  parameters: Record<string, string>;
  responses: { "200": { body: { nextLink: string; value: unknown[] } } };
};
const page = list.responses["200"].body;
const SUB = list.parameters.subscriptionId as string;
const RULE = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Insights/metricAlerts/cpu`;
const ALERTS = `/subscriptions/${SUB}/providers/Microsoft.AlertsManagement/alerts`;

describe("the coordinator reads the Alerts_List example", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
  });
  afterEach(() => arm.close());

  it("uses the example's api-version", () => {
    expect(list.parameters["api-version"]).toBe(ALERTS_API_VERSION);
  });

  it("does not follow the example's nextLink off the endpoint it was given (the token stays on ARM)", async () => {
    stub.on("GET", ALERTS, { status: 200, body: page });
    const r = await alertRuleFiring(arm, RULE);
    expect(r).toMatchObject({ ok: false, error: { code: "InvalidResponse" } });
    expect(stub.requests).toHaveLength(1);
  });

  it("counts the example's Fired alerts (New, Acknowledged) across its pages", async () => {
    // The example's page with its nextLink moved onto this endpoint (the path and query kept).
    const next = new URL(page.nextLink);
    const onStub = { ...page, nextLink: `${stub.url}${next.pathname}${next.search}` };
    stub.on("GET", ALERTS, { status: 200, body: onStub }, { status: 200, body: { value: [] } });
    expect(await alertRuleFiring(arm, RULE)).toEqual({
      ok: true,
      value: { firing: true, alerts: 2 },
    });
    const [first, second] = stub.requests;
    expect(first?.query).toMatchObject({ alertRule: RULE, monitorCondition: "Fired" });
    expect(second?.query).toMatchObject({ "api-version": ALERTS_API_VERSION, timeRange: "1d" });
    expect(second?.query.ctoken).toBe(next.searchParams.get("ctoken"));
  });
});

describe("the simulator's alerts have the example's shape", () => {
  const ctx = useContractSim();

  it("a fired alert: the example's fields but smart groups, and what a firing alert has not yet", async () => {
    ctx.sim.fireAlert("high-error-rate", { description: "error rate above 5 %" });
    const sub = ctx.sim.arm.resourceGroupId().split("/")[2];
    const got = await armCall(
      ctx.sim.armUrl,
      ctx.token,
      "GET",
      `/subscriptions/${sub}/providers/Microsoft.AlertsManagement/alerts?api-version=${ALERTS_API_VERSION}`,
    );
    const alerts = (got.body as { value: unknown[] }).value;
    expect(alerts).toHaveLength(1);
    expect(missingPaths(page.value[0], alerts[0])).toEqual([
      "properties.essentials.smartGroupId",
      "properties.essentials.smartGroupingReason",
      "properties.essentials.monitorConditionResolvedDateTime",
    ]);
  });
});
