import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { armPath } from "./resourceId";

/**
 * An Azure Monitor alert processing rule (`Microsoft.AlertsManagement/actionRules`), read and
 * written whole: `AlertProcessingRules_GetByName` and `AlertProcessingRules_CreateOrUpdate`
 * (azure-rest-api-specs, alertsmanagement `AlertProcessingRules.json`, api-version 2021-08-08,
 * the GA version). Its `scopes` may name single resources, so a rule whose scopes are the VMs
 * under maintenance applies to exactly their alerts; its PATCH takes only `enabled` and tags, so
 * the scopes change with a PUT of the rule as read (its conditions and actions kept).
 */
export const ACTION_RULES_API_VERSION = "2021-08-08";

const RULE_ID =
  /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.AlertsManagement\/actionRules\/[^/]+$/i;

export const ActionRule = z.looseObject({
  location: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  properties: z.looseObject({
    scopes: z.array(z.string()),
    enabled: z.boolean().optional(),
    conditions: z.array(z.unknown()).optional(),
    actions: z.array(z.unknown()),
    schedule: z.unknown().optional(),
    description: z.string().optional(),
  }),
});
export type ActionRule = z.infer<typeof ActionRule>;

const pathOf = (id: string) => armPath(...id.split("/").slice(1));
const invalid = (id: string): { ok: false; error: ArmError } => ({
  ok: false,
  error: localError("InvalidResourceId", `not an alert processing rule's id: ${id}`),
});

export async function getActionRule(
  arm: ArmClient,
  id: string,
): Promise<Result<ActionRule, ArmError>> {
  if (!RULE_ID.test(id)) return invalid(id);
  const r = await arm.request({
    method: "GET",
    path: pathOf(id),
    apiVersion: ACTION_RULES_API_VERSION,
    schema: ActionRule,
    operation: "readActionRule",
  });
  return r.ok ? { ok: true, value: r.value.body } : r;
}

/** Writes the rule with these scopes and this `enabled`, everything else as it was read. */
export async function scopeActionRule(
  arm: ArmClient,
  id: string,
  read: ActionRule,
  scopes: readonly string[],
  enabled: boolean,
): Promise<Result<ActionRule, ArmError>> {
  if (!RULE_ID.test(id)) return invalid(id);
  const { location, tags, properties } = read;
  const r = await arm.request({
    method: "PUT",
    path: pathOf(id),
    apiVersion: ACTION_RULES_API_VERSION,
    body: {
      location: location ?? "Global",
      ...(tags ? { tags } : {}),
      properties: { ...properties, scopes: [...scopes], enabled },
    },
    schema: ActionRule,
    operation: "scopeActionRule",
  });
  return r.ok ? { ok: true, value: r.value.body } : r;
}
