import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { armPath } from "./resourceId";

/**
 * Is an Azure Monitor alert rule firing now? Read from Alerts Management's `Alerts_GetAll`
 * (GET /subscriptions/{s}/providers/Microsoft.AlertsManagement/alerts), filtered by the spec's
 * query parameters `alertRule`, `monitorCondition` (`Fired`|`Resolved`) and `timeRange`
 * (`1h`|`1d`|`7d`|`30d`, default 1 day), paged by `nextLink`.
 *
 * api-version 2019-05-05-preview: the version whose spec defines that operation with these
 * filters (azure-rest-api-specs, alertsmanagement 2019-05-05-preview openapi.json).
 */
export const ALERTS_API_VERSION = "2019-05-05-preview";

/** Pages followed at most; the filter leaves few alerts per rule, this only bounds a runaway. */
const MAX_PAGES = 10;

const AlertList = z.looseObject({
  value: z
    .array(
      z.looseObject({
        properties: z
          .looseObject({
            essentials: z
              .looseObject({
                monitorCondition: z.string().optional(),
                alertState: z.string().optional(),
              })
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  nextLink: z.string().nullish(),
});

/**
 * Firing: an alert of the rule whose monitor condition is `Fired` and which nobody closed.
 * `alerts` counts those. The service filters on `Fired` already; the check is repeated because
 * that is what "firing" means here, whatever the filter did. The time range bounds which
 * alerts the service lists (its spec does not say by which timestamp): a condition fired
 * longer ago than `timeRange` and never resolved may not be listed, so pick the range to match
 * how long the rule's alerts can stay fired.
 */
export async function alertRuleFiring(
  arm: ArmClient,
  alertRuleId: string,
  options?: { timeRange?: "1h" | "1d" | "7d" | "30d" },
): Promise<Result<{ firing: boolean; alerts: number }, ArmError>> {
  const subscription = /^\/subscriptions\/([^/]+)\//i.exec(alertRuleId.trim())?.[1];
  if (!subscription)
    return {
      ok: false,
      error: localError("InvalidResourceId", `${alertRuleId} is not an alert rule id`),
    };
  let path = armPath(
    "subscriptions",
    subscription,
    "providers",
    "Microsoft.AlertsManagement",
    "alerts",
  );
  let query: Record<string, string> | undefined = {
    alertRule: alertRuleId,
    monitorCondition: "Fired",
    timeRange: options?.timeRange ?? "1d",
  };
  let alerts = 0;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const got = await arm.request({
      method: "GET",
      path,
      apiVersion: ALERTS_API_VERSION,
      ...(query ? { query } : {}),
      schema: AlertList,
      operation: "alertRuleFiring",
    });
    if (!got.ok) return got;
    for (const a of got.value.body.value ?? []) {
      const e = a.properties?.essentials;
      if (e?.monitorCondition === "Fired" && e.alertState !== "Closed") alerts++;
    }
    const next = got.value.body.nextLink;
    if (!next) break;
    // The nextLink carries its own filters and continuation token. Only one on the ARM
    // endpoint is followed: the request carries the ARM token.
    const url = URL.canParse(next, arm.endpoint) ? new URL(next, arm.endpoint) : undefined;
    if (!url || url.origin !== new URL(arm.endpoint).origin)
      return {
        ok: false,
        error: localError("InvalidResponse", `nextLink ${next} is not on ${arm.endpoint}`),
      };
    path = `${url.pathname}${url.search}`;
    query = undefined;
  }
  return { ok: true, value: { firing: alerts > 0, alerts } };
}
