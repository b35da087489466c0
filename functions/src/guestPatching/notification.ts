import { configurationName, runName } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { iso, list, type Notification } from "../notify/due";

/**
 * What a cluster's operators hear when a patch run met one of its events in maintenance: the run
 * cancelled through ARM (info), or a cancel that failed or came too late (warning: the run will
 * patch VMs while the event's maintenance is under way). Once per run, cluster and outcome; null
 * when the cluster's policy does not notify this kind.
 */
export function patchRunNotification(
  cluster: string,
  run: { correlationId: string; maintenanceConfigurationId: string; startAt: number },
  outcome: { state: "cancelled" | "failed" | "tooLate"; reason: string; detail: string | null },
  eventIds: readonly string[],
  at: number,
  policy: Policy,
): Notification | null {
  if (!policy.notify.on.includes("guestPatching")) return null;
  const name = runName(run.correlationId);
  const config = configurationName(run.maintenanceConfigurationId);
  const cancelled = outcome.state === "cancelled";
  return {
    key: `patchRun|${run.correlationId.toLowerCase()}|${cluster}|${outcome.state}|guestPatching`,
    cluster,
    kind: "guestPatching",
    severity: cancelled ? "info" : "warning",
    at,
    title: cancelled
      ? `${cluster}: Update Manager run ${name} of ${config} cancelled`
      : `${cluster}: Update Manager run ${name} of ${config} could not be cancelled`,
    text: cancelled
      ? `The guest patching run was cancelled through Azure Resource Manager because events of the cluster are in maintenance (policy guestPatching.whileEventActive: cancel).`
      : `The run will patch VMs while events of the cluster are in maintenance: ${outcome.detail ?? outcome.reason}.`,
    facts: [
      { name: "Run", value: run.correlationId },
      { name: "Window starts", value: iso(run.startAt) },
      { name: "Events", value: list([...eventIds]) },
      { name: "Outcome", value: outcome.state },
    ],
  };
}
