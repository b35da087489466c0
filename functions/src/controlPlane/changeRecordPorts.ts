import type { ArmClient, ArmError } from "../arm";
import { changeRecordName, closeChangeRecord, putChangeRecord } from "../arm/changeRecord";
import { withPolicyToken } from "../arm/policyToken";
import type { ChangeSafetyOptions } from "../configChangeSafety";
import type { ArmOutcome, ChangeRecordPorts } from "./ports";

/**
 * The change record ports over the ARM client, when QUIESCE_CHANGE_SAFETY asks for records
 * (null otherwise). A record's own create and update are ARM writes like any other: with
 * `policyToken` on they carry a token too (without a change reference: they make it).
 */
export function createChangeRecordPorts(
  arm: ArmClient,
  opts: ChangeSafetyOptions,
): ChangeRecordPorts | null {
  const where = opts.changeRecords;
  if (!where) return null;
  const writer = opts.policyToken ? withPolicyToken(arm) : arm;
  const scope = {
    subscriptionId: where.subscriptionId,
    ...(where.resourceGroup ? { resourceGroup: where.resourceGroup } : {}),
  };
  return {
    async open(req) {
      const vms = req.targets.map((t) => t.name).join(", ");
      const written = await putChangeRecord(
        writer,
        scope,
        changeRecordName(req.cluster, req.eventId),
        {
          changeType: where.changeType,
          rolloutType: where.rolloutType,
          description: `Azure maintenance (${req.eventType}, scheduled event ${req.eventId}) of ${vms} in cluster ${req.cluster}, coordinated by Quiesce: each VM is drained before the event is approved.`,
          comments: "Opened by Quiesce when the scheduled event was first seen.",
          targets: req.targets.map((t) =>
            t.resourceId
              ? { resourceId: t.resourceId }
              : { resourceName: t.name, resourceType: "Microsoft.Compute/virtualMachines" },
          ),
          anticipatedStartTime: req.anticipatedStart,
          anticipatedEndTime: req.anticipatedEnd,
          additionalData: { cluster: req.cluster, eventId: req.eventId, eventType: req.eventType },
        },
      );
      return outcome(written);
    },
    async close(id, close) {
      return outcome(await closeChangeRecord(writer, id, close));
    },
  };
}

function outcome<T>(r: { ok: true; value: T } | { ok: false; error: ArmError }): ArmOutcome<T> {
  return r.ok
    ? r
    : {
        ok: false,
        error: { status: r.error.status, code: r.error.code, message: r.error.message },
      };
}
