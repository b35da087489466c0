import { type Backoff, backoffMs, delay } from "@quiesce/protocol";
import type { ImdsProblem } from "@quiesce/protocol/imds";
import { carryOverUnreadable, type VmIdentity } from "@quiesce/protocol/imds";
import type { ImdsHealth } from "@quiesce/protocol/relay";
import { observeDocument, prune } from "../decisions/reconcile";
import type { ImdsClient, ScheduledEventsRead } from "../imds/client";
import { errorText } from "../log";
import type { RelayContext } from "./context";
import type { HookSupervisor } from "./hookSupervisor";

/** Until IMDS says who this VM is: 1 s doubling to 30 s, jittered so relays never retry in step. */
const IDENTITY_RETRY: Backoff = { baseMs: 1_000, maxMs: 30_000, jitter: "equal" };

/**
 * Polls IMDS once per interval (Azure's advice), whatever the coordinator or the hooks are
 * doing: reads this VM's identity once, then every Scheduled Events document, and turns each
 * change into state, a report and due hooks.
 */
export class ImdsWatcher {
  /** Reported while IMDS calls fail: the coordinator alerts on a relay whose reads keep failing. */
  health: ImdsHealth | undefined;
  /** What the last read could not make out; reported until a read is clean again. */
  problems: ImdsProblem[] = [];
  private problemsText = "[]";
  private latestText = "";
  private lastProblem = "";

  constructor(
    private readonly ctx: RelayContext,
    private readonly imds: ImdsClient,
    private readonly hooks: HookSupervisor,
  ) {}

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.vm = await this.acquireIdentity();
    const vm = ctx.vm;
    if (!vm) return;
    ctx.log.info("relay identity", { vm: vm.name, vmId: vm.vmId, resourceId: vm.resourceId });
    ctx.reports.soon();
    this.hooks.startDue(); // owed recovers from before a restart that the document cannot trigger
    while (!ctx.stopped) {
      const started = performance.now();
      try {
        this.onRead(await this.imds.readScheduledEvents(ctx.stopping.signal));
      } catch (e) {
        this.problem(`IMDS poll failed: ${errorText(e)}`);
      }
      this.hooks.startHeldWhenDue(); // a maintenance window's hold runs out on the relay's clock
      await delay(
        Math.max(0, ctx.config.pollIntervalMs - (performance.now() - started)),
        ctx.stopping.signal,
      );
    }
  }

  private async acquireIdentity(): Promise<VmIdentity | undefined> {
    const { ctx } = this;
    for (let failures = 1; !ctx.stopped; failures++) {
      try {
        return await this.imds.readIdentity(ctx.stopping.signal);
      } catch (e) {
        if (ctx.stopped) return undefined;
        ctx.log.warn("instance metadata not available yet; retrying", { error: errorText(e) });
        await delay(backoffMs(failures, IDENTITY_RETRY), ctx.stopping.signal);
      }
    }
    return undefined;
  }

  private problem(text: string): void {
    if (text !== this.lastProblem) this.ctx.log.warn(text);
    else this.ctx.log.debug(text);
    this.lastProblem = text;
  }

  private failed(error: string): void {
    const failuresInARow = (this.health?.failuresInARow ?? 0) + 1;
    this.health = {
      failuresInARow,
      since: this.health?.since ?? this.ctx.iso(),
      lastError: error.slice(0, 512),
    };
    // The first failure is reported at once; the growing count rides on the heartbeats (an IMDS
    // outage must not turn every relay into a fast reporter).
    if (failuresInARow === 1) this.ctx.reports.soon();
  }

  private setProblems(next: ImdsProblem[]): void {
    const text = JSON.stringify(next);
    if (text === this.problemsText) return;
    if (next.length > 0)
      this.ctx.log.warn("IMDS document partly unreadable; reported", { problems: next });
    this.problems = next;
    this.problemsText = text;
    this.ctx.reports.soon();
  }

  private onRead(read: ScheduledEventsRead): void {
    const { ctx } = this;
    if (read.kind === "unchanged") {
      this.health = undefined;
      return;
    }
    if (read.kind === "malformed") {
      this.failed(`malformed: ${read.error}`);
      this.setProblems(read.problems);
      this.problem(`IMDS document malformed, kept the last one: ${read.error}`);
      return;
    }
    if (read.kind === "unavailable") {
      this.failed(read.error);
      this.problem(`IMDS unavailable: ${read.error}`);
      return;
    }
    if (this.health) ctx.reports.soon();
    this.health = undefined;
    if (this.lastProblem) ctx.log.info("IMDS answering again");
    this.lastProblem = "";
    this.setProblems(read.problems);
    // An unreadable event is not one that left: keep the last readable version of what it may be.
    const document = carryOverUnreadable(ctx.latest, read) ?? read.document;
    const text = JSON.stringify(document);
    const vm = ctx.vm;
    if (text === this.latestText || !vm) return;
    ctx.latest = document;
    this.latestText = text;
    ctx.log.info("document changed", {
      incarnation: document.DocumentIncarnation,
      events: document.Events.map((e) => ({
        id: e.EventId,
        type: e.EventType,
        status: e.EventStatus,
        resources: e.Resources.length,
      })),
    });
    // One line per event, each with its eventId: `grep <EventId>` (or jq on .eventId) follows an
    // event through this VM's journal, with the same facts the coordinator counts in metrics.
    for (const e of document.Events)
      ctx.log.info("event seen", {
        eventId: e.EventId,
        eventType: e.EventType,
        eventStatus: e.EventStatus,
        notBefore: e.NotBefore || undefined,
        affectsThisVm: e.Resources.some((r) => r.toLowerCase() === vm.name.toLowerCase()),
        resources: e.Resources.length,
        incarnation: document.DocumentIncarnation,
      });
    ctx.setState(prune(observeDocument(ctx.state, document, vm.name, ctx.now()), ctx.now()));
    ctx.reports.soon();
    this.hooks.startDue();
  }
}
