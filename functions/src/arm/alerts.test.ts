import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ArmClient, alertRuleFiring, createArmClient } from "./index";

// Whether an Azure Monitor alert rule is firing, from Alerts Management's alert list.

const RULE =
  "/subscriptions/sub-1/resourceGroups/rg-mon/providers/Microsoft.Insights/metricAlerts/web-5xx";
const ALERTS = "/subscriptions/sub-1/providers/Microsoft.AlertsManagement/alerts";
const alert = (monitorCondition: string, alertState: string) => ({
  id: `${ALERTS}/${monitorCondition}-${alertState}`,
  properties: { essentials: { monitorCondition, alertState, severity: "Sev2" } },
});

const stub = useHttpStub();
let arm: ArmClient;
beforeEach(() => {
  arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
});
afterEach(() => arm.close());

describe("an alert rule firing", () => {
  it("is firing when an alert of the rule is Fired and not Closed, asked with the rule and Fired over a day", async () => {
    stub.on("GET", ALERTS, {
      status: 200,
      body: { value: [alert("Fired", "New"), alert("Fired", "Acknowledged")] },
    });
    expect(await alertRuleFiring(arm, RULE)).toEqual({
      ok: true,
      value: { firing: true, alerts: 2 },
    });
    expect(stub.requests[0]?.query).toEqual({
      "api-version": "2019-05-05-preview",
      alertRule: RULE,
      monitorCondition: "Fired",
      timeRange: "1d",
    });
  });

  it("is not firing when no alert is listed, or the ones listed are resolved or closed", async () => {
    stub.on(
      "GET",
      ALERTS,
      { status: 200, body: { value: [] } },
      {
        status: 200,
        body: { value: [alert("Resolved", "New"), alert("Fired", "Closed")] },
      },
    );
    expect(await alertRuleFiring(arm, RULE)).toEqual({
      ok: true,
      value: { firing: false, alerts: 0 },
    });
    expect(await alertRuleFiring(arm, RULE)).toEqual({
      ok: true,
      value: { firing: false, alerts: 0 },
    });
  });

  it("follows nextLink on the ARM endpoint and counts every page", async () => {
    const next = `${stub.url}${ALERTS}?api-version=2019-05-05-preview&timeRange=1d&ctoken=page2`;
    stub.on("GET", ALERTS, (req) =>
      req.query.ctoken === "page2"
        ? { status: 200, body: { value: [alert("Fired", "New")] } }
        : { status: 200, body: { value: [alert("Fired", "New")], nextLink: next } },
    );
    expect(await alertRuleFiring(arm, RULE)).toEqual({
      ok: true,
      value: { firing: true, alerts: 2 },
    });
    expect(stub.requests.map((r) => r.query.ctoken)).toEqual([undefined, "page2"]);
  });

  it("refuses a nextLink to another host: the ARM token stays on ARM", async () => {
    stub.on("GET", ALERTS, {
      status: 200,
      body: { value: [], nextLink: `https://elsewhere.example${ALERTS}?ctoken=x` },
    });
    expect(await alertRuleFiring(arm, RULE)).toMatchObject({
      ok: false,
      error: { code: "InvalidResponse" },
    });
    expect(stub.requests).toHaveLength(1);
  });

  it("surfaces ARM's refusal, e.g. a missing role", async () => {
    stub.on("GET", ALERTS, {
      status: 403,
      body: { error: { code: "AuthorizationFailed", message: "no" } },
    });
    expect(await alertRuleFiring(arm, RULE)).toMatchObject({
      ok: false,
      error: { status: 403, code: "AuthorizationFailed" },
    });
  });
});
