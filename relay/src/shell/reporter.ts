import { backoffMs, delay } from "@quiesce/protocol";
import { type Directive, PROTOCOL_VERSION, type RelayReport } from "@quiesce/protocol/relay";
import type { CoordinatorClient } from "../coordinator/client";
import { applyDeferrals, reportedKeys } from "../decisions/deferral";
import { reportedHooks, requestRecover } from "../decisions/reconcile";
import { hooksNotStored } from "../decisions/storedHooks";
import { errorText } from "../log";
import { RELAY_VERSION } from "../version";
import type { Approver } from "./approver";
import type { Attester } from "./attester";
import type { RelayContext } from "./context";
import type { HookSupervisor } from "./hookSupervisor";
import type { ImdsWatcher } from "./imdsWatcher";

export interface ReporterStats {
  reports: number;
  failuresInARow: number;
  lastError?: string;
  lastAnswerAt?: string;
}

/**
 * Reports the relay's whole current view on every change and as a heartbeat at the interval the
 * coordinator asks for, and acts on the directives in each answer. A failed report is retried
 * with jittered backoff while polling and hooks go on.
 */
export class Reporter {
  readonly stats: ReporterStats = { reports: 0, failuresInARow: 0 };
  seq = 0;
  /**
   * Protocol 1.1: hook states the coordinator has not yet shown it holds in storage. Until it
   * does, report at the active interval, even with nothing new to say: the coordinator may have
   * answered and then lost the write (a storage crash), and only a read-back proves it kept it.
   */
  private hooksUnstored = false;
  private activeMs: number | undefined;

  constructor(
    private readonly ctx: RelayContext,
    private readonly coordinator: CoordinatorClient,
    private readonly watcher: ImdsWatcher,
    private readonly hooks: HookSupervisor,
    private readonly approver: Approver,
    private readonly bootId: string,
    private readonly retry: { baseMs: number; maxMs: number },
    private readonly bounds: { min: number; max: number },
    private readonly attester: Attester,
  ) {}

  private async build(): Promise<RelayReport | undefined> {
    const { ctx, watcher } = this;
    if (!ctx.vm) return undefined;
    // Always sent (1.2): that this relay can attest is itself what the coordinator needs to know.
    const attestation = await this.attester.field(ctx.stopping.signal);
    return {
      protocol: PROTOCOL_VERSION,
      cluster: ctx.config.cluster,
      vm: ctx.vm,
      relay: {
        version: RELAY_VERSION,
        bootId: this.bootId,
        seq: this.seq++,
        dryRun: ctx.config.dryRun,
      },
      document: ctx.latest,
      hooks: reportedHooks(ctx.state),
      approvals: ctx.state.approvals,
      sentAt: ctx.iso(),
      ...(watcher.health ? { imds: watcher.health } : {}),
      // Only when there is something to say: a coordinator before 1.1 need never see the field.
      ...(watcher.problems.length > 0 ? { imdsProblems: watcher.problems } : {}),
      attestation,
    };
  }

  async run(): Promise<void> {
    const { ctx, retry, bounds, stats } = this;
    const { log } = ctx;
    let heartbeatMs = bounds.min;
    while (!ctx.stopped) {
      if (!ctx.vm || !ctx.reports.dirty) {
        await ctx.reports.sleep(ctx.vm ? heartbeatMs : 60_000);
        if (!ctx.vm || ctx.stopped) continue;
      }
      ctx.reports.dirty = false;
      const report = await this.build();
      if (!report || ctx.stopped) continue;
      const outcome = await this.coordinator.report(report, ctx.stopping.signal);
      if (ctx.stopped) break;
      if (outcome.ok) {
        if (stats.failuresInARow > 0)
          log.info("coordinator reachable again", { after: stats.failuresInARow });
        stats.failuresInARow = 0;
        stats.reports++;
        stats.lastAnswerAt = ctx.iso();
        stats.lastError = undefined;
        const { response, skipped } = outcome.value;
        const { hooksStored, activeReportSeconds } = response;
        if (activeReportSeconds !== undefined) this.activeMs = activeReportSeconds * 1000;
        this.hooksUnstored = hooksNotStored(report, hooksStored);
        const askedMs = response.nextReportInSeconds * 1000;
        const activeMs = this.activeMs;
        heartbeatMs = Math.min(
          bounds.max,
          Math.max(
            bounds.min,
            this.hooksUnstored && activeMs ? Math.min(askedMs, activeMs) : askedMs,
          ),
        );
        log.debug("report sent", {
          applied: response.applied,
          directives: response.directives.length,
          nextReportInSeconds: response.nextReportInSeconds,
        });
        for (const skip of skipped)
          log.warn("directive skipped: not understood by this relay version", { ...skip });
        if (response.applied) this.onDeferrals(report, response.directives);
        this.onDirectives(response.directives);
        if (this.attester.onAnswer(response.attestation, report.attestation ?? {}))
          ctx.reports.dirty = true; // a challenge: prove it now, not at the next heartbeat
      } else {
        stats.failuresInARow++;
        stats.lastError = outcome.error.message;
        // A refusal for want of a binding carries the challenge to answer on the retry.
        if (outcome.error.attestation)
          this.attester.onAnswer(outcome.error.attestation, report.attestation ?? {});
        // First failure and then every tenth: an outage must not flood the journal.
        if (stats.failuresInARow === 1 || stats.failuresInARow % 10 === 0) {
          log.warn("report failed; polling and hooks continue", {
            error: outcome.error.message,
            failuresInARow: stats.failuresInARow,
          });
        }
        ctx.reports.dirty = true; // the current view is still owed, whatever changes meanwhile
        // While something is owed (events in the document, hook states not yet stored) retry
        // at least at the active interval, so the cluster converges within one interval of the
        // coordinator answering again.
        const owed = this.hooksUnstored || (ctx.latest?.Events.length ?? 0) > 0;
        const maxMs = owed && this.activeMs ? Math.min(retry.maxMs, this.activeMs) : retry.maxMs;
        const waitMs = backoffMs(stats.failuresInARow, {
          baseMs: retry.baseMs,
          maxMs,
          jitter: "equal",
        });
        await delay(waitMs, ctx.stopping.signal);
      }
    }
  }

  /** Maintenance windows (deferral.ts): hold or release the drains of the reported events. */
  private onDeferrals(report: RelayReport, directives: Directive[]): void {
    const { ctx } = this;
    const next = applyDeferrals(ctx.state, reportedKeys(report.document), directives, ctx.now());
    if (next === ctx.state) return;
    for (const d of directives)
      if (d.kind === "defer" && d.eventIds.length > 0)
        ctx.log.info("drain deferred by a maintenance window", {
          eventIds: d.eventIds,
          untilSeconds: d.untilSeconds,
          reason: d.reason,
        });
    ctx.setState(next);
    this.hooks.startDue(); // a hold lifted, or the answer a new event waited for came
  }

  private onDirectives(directives: Directive[]): void {
    const { ctx } = this;
    for (const d of directives) {
      if (d.kind === "defer") continue; // onDeferrals
      if (d.kind === "approve") {
        ctx.track(
          this.approver
            .approve(d.eventIds)
            .catch((e) => ctx.log.error("approval failed", { error: errorText(e) })),
        );
      } else {
        const next = requestRecover(ctx.state, d.eventId);
        if (next === ctx.state)
          ctx.log.debug("recover directive: nothing owed for this event", { eventId: d.eventId });
        else ctx.log.info("recover directive", { eventId: d.eventId });
        ctx.setState(next);
        this.hooks.startDue();
      }
    }
  }
}
