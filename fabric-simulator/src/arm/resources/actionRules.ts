import { z } from "zod";
import { type ArmAnswer, armError, invalidContent, ok } from "../errors";
import type { ArmCall } from "./call";

/**
 * Alert processing rules (`Microsoft.AlertsManagement/actionRules`, api-version 2021-08-08):
 * `AlertProcessingRules_GetByName` and `_CreateOrUpdate`, stored as written (Azure's, not the
 * fabric's: they outlive a reset). What the rule then does to alerts (suppressing their action
 * groups) is not simulated: the product only keeps its scopes, and that is what tests read.
 */
const Action = z.looseObject({ actionType: z.enum(["AddActionGroups", "RemoveAllActionGroups"]) });
const Condition = z.looseObject({
  field: z.string(),
  operator: z.enum(["Equals", "NotEquals", "Contains", "DoesNotContain"]),
  values: z.array(z.string()).min(1),
});
const RuleBody = z.looseObject({
  location: z.string(),
  tags: z.record(z.string(), z.string()).optional(),
  properties: z.looseObject({
    scopes: z.array(z.string().min(1)).min(1),
    conditions: z.array(Condition).optional(),
    actions: z.array(Action).min(1),
    enabled: z.boolean().default(true),
    description: z.string().optional(),
    schedule: z.unknown().optional(),
  }),
});

export function getActionRule(call: ArmCall): ArmAnswer {
  const rule = call.arm.actionRules.get(call.path);
  return rule
    ? ok(rule)
    : armError(
        404,
        "ResourceNotFound",
        `The alert processing rule '${call.params.ruleName}' was not found.`,
      );
}

export async function putActionRule(call: ArmCall): Promise<ArmAnswer> {
  const body = await call.body();
  if (!body.ok) return body.answer;
  const parsed = RuleBody.safeParse(body.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalidContent(`${issue?.path.join(".")}: ${issue?.message}`);
  }
  const rule = {
    ...parsed.data,
    id: call.path,
    name: call.params.ruleName,
    type: "Microsoft.AlertsManagement/actionRules",
  };
  const created = call.arm.actionRules.put(call.path, rule);
  return { ...ok(rule), status: created ? 201 : 200 };
}
