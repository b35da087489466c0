import { z } from "zod";
import type { Result } from "../result";

/**
 * Azure Update Manager's pre- and post-maintenance events, which a maintenance configuration's
 * Event Grid system topic delivers (learn.microsoft.com "Azure Maintenance Configuration as an
 * Event Grid source"; test/contracts/fixtures/update-manager/SOURCES.md): the pre-event 40 to 20
 * minutes before a scheduled patch run starts, the post-event after it ended. Only the
 * pre-event's handler can cancel the run, before `CancellationCutOffDateTime`, with a PUT of
 * `{properties: {status: "Cancel"}}` on the run's `applyUpdates` resource, which is the
 * `CorrelationId` (arm/applyUpdates.ts).
 */

export const PRE_MAINTENANCE_EVENT = "Microsoft.Maintenance.PreMaintenanceEvent";
export const POST_MAINTENANCE_EVENT = "Microsoft.Maintenance.PostMaintenanceEvent";
export const PATCH_RUN_EVENT_TYPES: readonly string[] = [
  PRE_MAINTENANCE_EVENT,
  POST_MAINTENANCE_EVENT,
];

/** A maintenance configuration's ARM id (any case: ARM ids are case-insensitive). */
const ConfigurationId = z
  .string()
  .max(1024)
  .regex(
    /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Maintenance\/maintenanceConfigurations\/[^/]+$/i,
    "a maintenance configuration's ARM id",
  );

/** One scheduled run: `<configuration id>/providers/microsoft.maintenance/applyupdates/<yyyyMMddHHmm00>`. */
const RunId = z
  .string()
  .max(1200)
  .regex(
    /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Maintenance\/maintenanceConfigurations\/[^/]+\/providers\/Microsoft\.Maintenance\/applyUpdates\/[^/]+$/i,
    "a maintenance run's applyUpdates id",
  );

const Time = z.string().max(64);

/**
 * The `data` of both events. Microsoft's page names the keys in PascalCase on learn.microsoft.com
 * and in camelCase in its source file (and its table): both are read, keys compared with a
 * lower-case first letter. Keys it does not name are kept out but not refused: Azure adds
 * fields, and a refused event is dead-lettered (a 400 is never retried).
 */
const PatchRunData = z.looseObject({
  correlationId: RunId,
  maintenanceConfigurationId: ConfigurationId,
  startDateTime: Time,
  endDateTime: Time,
  /** Pre-event only. */
  cancellationCutOffDateTime: Time.optional(),
  resourceSubscriptionIds: z.array(z.string().max(128)).max(1000).default([]),
  /** Post-event only: "the completion status of maintenance schedule instance". */
  status: z.string().max(64).optional(),
});

/** A pre- or post-maintenance event, as the coordinator keeps it. */
export interface PatchRunEvent {
  kind: "pre" | "post";
  /** The run's `applyUpdates` id, as Azure wrote it: the cancel call's path. */
  correlationId: string;
  maintenanceConfigurationId: string;
  startAt: number;
  endAt: number;
  /** Pre-event: the last moment a cancel is taken. */
  cancelCutoffAt: number | null;
  subscriptionIds: string[];
  /** Post-event: Succeeded, Failed, ... */
  status: string | null;
  /** Event Grid's id of the delivery (the same for every copy of it). */
  deliveryId: string;
}

/** Reads one event's data, given its type; an error names the field. */
export function parsePatchRunEvent(
  type: string,
  deliveryId: string,
  data: unknown,
): Result<PatchRunEvent> {
  const kind =
    type === PRE_MAINTENANCE_EVENT ? "pre" : type === POST_MAINTENANCE_EVENT ? "post" : null;
  if (!kind) return { ok: false, error: `not a maintenance configuration event: ${type}` };
  const parsed = PatchRunData.safeParse(camelKeys(data));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${issue?.path.join(".")} ${issue?.message}` };
  }
  const d = parsed.data;
  const startAt = timeOf(d.startDateTime);
  const endAt = timeOf(d.endDateTime);
  const cutoff = d.cancellationCutOffDateTime ? timeOf(d.cancellationCutOffDateTime) : null;
  if (startAt === null || endAt === null || (d.cancellationCutOffDateTime && cutoff === null))
    return {
      ok: false,
      error: "startDateTime, endDateTime or cancellationCutOffDateTime is not an ISO 8601 time",
    };
  if (endAt < startAt) return { ok: false, error: "endDateTime is before startDateTime" };
  if (kind === "pre" && cutoff === null)
    return { ok: false, error: "a pre-maintenance event without cancellationCutOffDateTime" };
  return {
    ok: true,
    value: {
      kind,
      correlationId: d.correlationId,
      maintenanceConfigurationId: d.maintenanceConfigurationId,
      startAt,
      endAt,
      cancelCutoffAt: cutoff,
      subscriptionIds: d.resourceSubscriptionIds,
      status: d.status ?? null,
      deliveryId,
    },
  };
}

/** The configuration a run belongs to, from its id (lower case: ARM ids ignore case). */
export function configurationOfRun(correlationId: string): string {
  return correlationId
    .replace(/\/providers\/microsoft\.maintenance\/applyupdates\/[^/]+$/i, "")
    .toLowerCase();
}

/** `{"CorrelationId": …}` and `{"correlationId": …}` alike; a key given both ways is refused by zod's type of the second. */
function camelKeys(data: unknown): unknown {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    const key = k.charAt(0).toLowerCase() + k.slice(1);
    if (key in out) return { ...out, [key]: Symbol("duplicate") };
    out[key] = v;
  }
  return out;
}

function timeOf(text: string): number | null {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;
  if (!iso.test(text)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? null : ms;
}
