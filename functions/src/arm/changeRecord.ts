import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { armPath } from "./resourceId";

/**
 * Change records of Azure Change Safety (preview): `Microsoft.ChangeSafety/changeRecords`, a
 * proxy resource at subscription or resource-group scope that says which change is planned, on
 * which targets, from when to when (`az changesafety changerecord`, `New-AzChangeSafetyChangeRecord`).
 * Its id is what `acquirePolicyToken` takes as `changeReference`.
 *
 * api-version 2026-01-01-preview, the first with ChangeRecord (azure-rest-api-specs
 * `specification/changesafety/resource-manager/Microsoft.ChangeSafety/ChangeControl/preview/
 * 2026-01-01-preview/ChangeControl.json`). `status` is read-only (NotApplicable for a record
 * without a stage map), so a record is "closed" the way the model allows: a PATCH of its
 * `comments` (the outcome) and `anticipatedEndTime` (when the event really ended).
 */
export const CHANGE_SAFETY_API_VERSION = "2026-01-01-preview";

/** `/subscriptions/{id}` or `/subscriptions/{id}/resourceGroups/{name}`: where records are made. */
export interface ChangeRecordScope {
  subscriptionId: string;
  resourceGroup?: string;
}

/** What Quiesce writes; the RP's enums: ChangeType, RolloutType (ChangeControl.json). */
export interface ChangeRecordSpec {
  changeType: "AppDeployment" | "Config" | "PolicyDeployment" | "ManualTouch";
  rolloutType: "Normal" | "Hotfix" | "Emergency";
  description: string;
  comments: string;
  /** Each affected VM: its ARM id when known, else its name. */
  targets: ReadonlyArray<{ resourceId: string } | { resourceName: string; resourceType: string }>;
  anticipatedStartTime: Date;
  anticipatedEndTime: Date;
  additionalData: Readonly<Record<string, string>>;
}

const ChangeRecord = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  type: z.string().optional(),
  properties: z
    .looseObject({
      status: z.string().optional(),
      provisioningState: z.string().optional(),
    })
    .optional(),
});

export interface ChangeRecordWritten {
  id: string;
  status: string | null;
}

/** A name the RP accepts (`^[a-zA-Z0-9-]{3,100}$`), the same for the same event every time. */
export function changeRecordName(cluster: string, eventId: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
  return `quiesce-${clean(cluster).slice(0, 40)}-${clean(eventId).slice(0, 50)}`.slice(0, 100);
}

export function changeRecordPath(scope: ChangeRecordScope, name: string): string {
  const base = scope.resourceGroup
    ? armPath("subscriptions", scope.subscriptionId, "resourceGroups", scope.resourceGroup)
    : armPath("subscriptions", scope.subscriptionId);
  return `${base}${armPath("providers", "Microsoft.ChangeSafety", "changeRecords", name)}`;
}

/**
 * Creates (or replaces: PUT is idempotent, the name is the event's) the record. The targets are
 * a `Targets` change definition, the kind the PowerShell module's `-Targets` parameter set builds.
 */
export async function putChangeRecord(
  arm: ArmClient,
  scope: ChangeRecordScope,
  name: string,
  spec: ChangeRecordSpec,
): Promise<Result<ChangeRecordWritten, ArmError>> {
  const answer = await arm.request({
    method: "PUT",
    path: changeRecordPath(scope, name),
    apiVersion: CHANGE_SAFETY_API_VERSION,
    body: {
      properties: {
        changeType: spec.changeType,
        rolloutType: spec.rolloutType,
        description: spec.description.slice(0, 2000),
        comments: spec.comments.slice(0, 2000),
        changeDefinition: {
          name: "TargetSelection",
          kind: "Targets",
          details: { targets: spec.targets },
        },
        anticipatedStartTime: spec.anticipatedStartTime.toISOString(),
        anticipatedEndTime: spec.anticipatedEndTime.toISOString(),
        orchestrationTool: "Quiesce",
        additionalData: spec.additionalData,
      },
    },
    schema: ChangeRecord,
    operation: "changeRecordOpen",
  });
  return answer.ok ? written(answer.value.body) : answer;
}

/** Records how the change ended: its comments and its real end. */
export async function closeChangeRecord(
  arm: ArmClient,
  id: string,
  close: { comments: string; endedAt: Date },
): Promise<Result<ChangeRecordWritten, ArmError>> {
  if (
    !/^\/subscriptions\/[^/]+\/(resourceGroups\/[^/]+\/)?providers\/Microsoft\.ChangeSafety\/changeRecords\/[^/]+$/i.test(
      id,
    )
  )
    return {
      ok: false,
      error: localError("InvalidResourceId", `${id} is not a change record's id`),
    };
  const answer = await arm.request({
    method: "PATCH",
    path: id.split("/").map(encodeURIComponent).join("/"),
    apiVersion: CHANGE_SAFETY_API_VERSION,
    body: {
      properties: {
        comments: close.comments.slice(0, 2000),
        anticipatedEndTime: close.endedAt.toISOString(),
      },
    },
    schema: ChangeRecord,
    operation: "changeRecordClose",
  });
  return answer.ok ? written(answer.value.body) : answer;
}

const written = (r: z.infer<typeof ChangeRecord>): Result<ChangeRecordWritten, ArmError> => ({
  ok: true,
  value: { id: r.id, status: r.properties?.status ?? null },
});
