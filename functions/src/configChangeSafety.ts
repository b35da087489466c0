import { z } from "zod";
import { json } from "./configValues";

/**
 * The setting of Azure Change Safety (docs/control-plane.md, "Change Safety"): whether every ARM
 * write the coordinator makes (acknowledge, load-balancer admin state, change records) first
 * acquires an Azure Policy token, and whether each event gets a change record. Kept apart from
 * config.ts, which it extends. Off unless set: today's behaviour.
 *
 *   QUIESCE_CHANGE_SAFETY={"policyToken":true,
 *     "changeRecords":{"scope":"/subscriptions/<id>/resourceGroups/<rg>"}}
 */

/** Where records are made: a subscription, or one of its resource groups (ChangeRecords_* scopes). */
const Scope = z
  .string()
  .regex(
    /^\/subscriptions\/[0-9A-Fa-f-]{36}(\/resourceGroups\/[-\w.()]{1,90})?$/,
    "/subscriptions/<subscription id> or /subscriptions/<subscription id>/resourceGroups/<name>",
  );

export const ChangeSafety = z.strictObject({
  /** Acquire a policy token (acquirePolicyToken) for each ARM write and send it with the write. */
  policyToken: z.boolean().default(false),
  /** Open a change record per event and close it when the event ends; absent: none. */
  changeRecords: z
    .strictObject({
      scope: Scope,
      /** The RP's ChangeType: maintenance the platform does to VMs is closest to ManualTouch. */
      changeType: z
        .enum(["AppDeployment", "Config", "PolicyDeployment", "ManualTouch"])
        .default("ManualTouch"),
      rolloutType: z.enum(["Normal", "Hotfix", "Emergency"]).default("Normal"),
    })
    .optional(),
});
export type ChangeSafety = z.infer<typeof ChangeSafety>;

export const changeSafetySettings = {
  /**
   * Azure Change Safety: policy tokens for the coordinator's ARM writes, and a change record per
   * event. Needs QUIESCE_CONTROL_PLANE. Default: both off.
   */
  QUIESCE_CHANGE_SAFETY: json(ChangeSafety).default({ policyToken: false }),
};

/** Refuses the setting beside the others where it cannot work: it acts only through ARM. */
export function checkChangeSafety(
  s: { QUIESCE_CHANGE_SAFETY?: ChangeSafety; QUIESCE_CONTROL_PLANE?: boolean },
  ctx: z.RefinementCtx,
): void {
  const c = s.QUIESCE_CHANGE_SAFETY;
  if (!c || s.QUIESCE_CONTROL_PLANE || (!c.policyToken && !c.changeRecords)) return;
  ctx.addIssue({
    code: "custom",
    path: ["QUIESCE_CHANGE_SAFETY"],
    message:
      'policy tokens and change records are ARM writes: set QUIESCE_CONTROL_PLANE=true (and grant its roles, docs/control-plane.md "Change Safety") or turn them off',
  });
}

/** The options the coordinator runs with (options.ts), from the parsed setting. */
export interface ChangeSafetyOptions {
  policyToken: boolean;
  changeRecords: {
    subscriptionId: string;
    resourceGroup?: string;
    changeType: NonNullable<ChangeSafety["changeRecords"]>["changeType"];
    rolloutType: NonNullable<ChangeSafety["changeRecords"]>["rolloutType"];
  } | null;
}

export function changeSafetyOptions(c: ChangeSafety): ChangeSafetyOptions {
  const r = c.changeRecords;
  const [, , subscriptionId, , resourceGroup] = r ? r.scope.split("/") : [];
  return {
    policyToken: c.policyToken,
    changeRecords:
      r && subscriptionId
        ? {
            subscriptionId,
            ...(resourceGroup ? { resourceGroup } : {}),
            changeType: r.changeType,
            rolloutType: r.rolloutType,
          }
        : null,
  };
}
