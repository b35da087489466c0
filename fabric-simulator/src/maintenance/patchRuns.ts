import { randomUUID } from "node:crypto";
import { POST_MAINTENANCE_EVENT, PRE_MAINTENANCE_EVENT } from "@quiesce/protocol/published";
import { z } from "zod";
import type { ControlResult } from "../model/controlResult";
import { parseCommand, refused } from "../model/controlResult";

/**
 * Azure Update Manager's scheduled patch runs, as far as Quiesce meets them: a control starts a
 * run of a maintenance configuration, whose pre-maintenance event the Event Grid topic delivers
 * (by default 30 min before the window, inside Azure's 40 → 20), `PUT …/applyUpdates/{run}` with
 * `{"properties":{"status":"Cancel"}}` cancels it before its cut-off (the RP's answer is its
 * spec example's: 200 with `status: Cancelled`), and finishing it delivers the post-event. The
 * event's shape is Microsoft's sample's (learn.microsoft.com "Azure Maintenance Configuration as
 * an Event Grid source"), keys in PascalCase as the published page writes them.
 */

export const StartPatchRun = z.strictObject({
  /** The maintenance configuration's name, in the simulated resource group. */
  configuration: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
  /** Seconds of simulated time from the pre-event to the window (Azure: 1,200 to 2,400). */
  startInSeconds: z.number().int().min(0).max(86_400).default(1_800),
  durationMinutes: z.number().int().min(1).max(1_440).default(235),
  /** Seconds before the window that cancels stop being taken (the sample: 60). */
  cutOffSeconds: z.number().int().min(0).max(3_600).default(60),
});
export type StartPatchRun = z.input<typeof StartPatchRun>;

export interface PatchRun {
  readonly correlationId: string;
  readonly configurationId: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly cutOffMs: number;
  status: "Scheduled" | "Cancelled" | "Succeeded";
  cancelledAtMs?: number;
}

/** The run's name as Azure forms it: the window's start, `yyyyMMddHHmm00` (the sample: 20230509150000). */
const runName = (ms: number) =>
  new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 12).concat("00");
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** One event of a run in the Event Grid schema (the body is an array of it). */
export function patchRunEvent(
  run: PatchRun,
  kind: "pre" | "post",
  subscriptionId: string,
  atMs: number,
): Record<string, unknown> {
  const common = {
    CorrelationId: run.correlationId,
    MaintenanceConfigurationId: run.configurationId,
    StartDateTime: iso(run.startMs),
    EndDateTime: iso(run.endMs),
  };
  return {
    id: randomUUID(),
    topic: run.configurationId,
    subject: run.configurationId.slice(run.configurationId.lastIndexOf("/") + 1),
    data:
      kind === "pre"
        ? {
            ...common,
            CancellationCutOffDateTime: iso(run.cutOffMs),
            ResourceSubscriptionIds: [subscriptionId],
          }
        : { ...common, Status: run.status, ResourceSubscriptionIds: [subscriptionId] },
    eventType: kind === "pre" ? PRE_MAINTENANCE_EVENT : POST_MAINTENANCE_EVENT,
    eventTime: new Date(atMs).toISOString(),
    dataVersion: "1.0",
    metadataVersion: "1",
  };
}

export class PatchRunBook {
  private readonly runs = new Map<string, PatchRun>();
  private publish: (run: PatchRun, event: Record<string, unknown>) => void = () => {};

  /** Where the topic delivers each run's events (the simulator's Event Grid service). */
  connect(publish: (run: PatchRun, event: Record<string, unknown>) => void): void {
    this.publish = publish;
  }

  start(
    input: unknown,
    scope: { subscriptionId: string; resourceGroupId: string },
    nowMs: number,
  ): ControlResult<PatchRun> {
    const p = parseCommand(StartPatchRun, input);
    if (!p.ok) return p;
    const startMs = nowMs + p.value.startInSeconds * 1000;
    const configurationId = `${scope.resourceGroupId}/providers/Microsoft.Maintenance/maintenanceConfigurations/${p.value.configuration}`;
    const correlationId = `${configurationId}/providers/microsoft.maintenance/applyupdates/${runName(startMs)}`;
    if (this.runs.has(correlationId.toLowerCase()))
      return refused(409, `a run of ${p.value.configuration} starting then exists`);
    const run: PatchRun = {
      correlationId,
      configurationId,
      startMs,
      endMs: startMs + p.value.durationMinutes * 60_000,
      cutOffMs: startMs - p.value.cutOffSeconds * 1000,
      status: "Scheduled",
    };
    this.runs.set(correlationId.toLowerCase(), run);
    this.publish(
      run,
      patchRunEvent(run, "pre", scope.subscriptionId.replace(/^\/subscriptions\//, ""), nowMs),
    );
    return { ok: true, value: run };
  }

  /** The RP's answer to a cancel: only a Scheduled run before its cut-off is cancelled. */
  cancel(correlationId: string, nowMs: number): ControlResult<PatchRun> {
    const run = this.runs.get(correlationId.toLowerCase());
    if (!run) return refused(404, `no maintenance run ${correlationId}`);
    if (run.status === "Cancelled") return { ok: true, value: run };
    if (run.status !== "Scheduled" || nowMs >= run.cutOffMs)
      return refused(400, `the run's cancellation cut-off (${iso(run.cutOffMs)}) has passed`);
    run.status = "Cancelled";
    run.cancelledAtMs = nowMs;
    return { ok: true, value: run };
  }

  /**
   * The run ends. A cancelled run sends no post-event here: whether Azure sends one is not
   * documented (an assumption of the simulator).
   */
  finish(correlationId: string, subscriptionId: string, nowMs: number): ControlResult<PatchRun> {
    const run = this.runs.get(correlationId.toLowerCase());
    if (!run) return refused(404, `no maintenance run ${correlationId}`);
    if (run.status === "Scheduled") {
      run.status = "Succeeded";
      this.publish(
        run,
        patchRunEvent(run, "post", subscriptionId.replace(/^\/subscriptions\//, ""), nowMs),
      );
    }
    return { ok: true, value: run };
  }

  list(): PatchRun[] {
    return [...this.runs.values()];
  }
}
