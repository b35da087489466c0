import { entryOf } from "@quiesce/protocol";
import { isAdvisory, type VmIdentity } from "@quiesce/protocol/imds";
import { holdEnded } from "../decisions/deferral";
import {
  dueHooks,
  type HookAction,
  hookFinished,
  hookStarted,
  prune,
} from "../decisions/reconcile";
import type { RelayState } from "../decisions/state";
import { hookTimeoutMs } from "../decisions/timeouts";
import type { HookOutcome } from "../hooks/outcome";
import type { HookRunner } from "../hooks/runner";
import { errorText } from "../log";
import type { RelayContext } from "./context";

/**
 * Starts the hooks dueHooks says are due, each at most once, with its deadline from NotBefore;
 * records how each ended. A hook never blocks IMDS polling or reporting.
 */
export class HookSupervisor {
  constructor(
    private readonly ctx: RelayContext,
    private readonly runHook: HookRunner,
    /** Shown the state after the hooks it called for started (the Kubernetes node conditions). */
    private readonly observe?: (state: RelayState, vm: VmIdentity, signal: AbortSignal) => void,
  ) {}

  /** Runs after every change of the document, and after every hook ended. */
  startDue(): void {
    const { ctx } = this;
    if (ctx.stopped || !ctx.vm) return;
    for (const action of dueHooks(ctx.state, ctx.config.rebalanceAction, ctx.now()))
      this.start(action, ctx.vm);
    this.observe?.(ctx.state, ctx.vm, ctx.stopping.signal);
  }

  /** Every IMDS poll: a drain a maintenance window held starts once its hold ran out. */
  startHeldWhenDue(): void {
    if (holdEnded(this.ctx.state, this.ctx.now())) this.startDue();
  }

  private start(action: HookAction, identity: VmIdentity): void {
    const { ctx } = this;
    const { config, log } = ctx;
    ctx.setState(hookStarted(ctx.state, action, ctx.now()));
    const rec = entryOf(ctx.state.events, action.key);
    const run = rec?.[action.kind];
    if (!rec || !run) return;
    const timeoutMs = hookTimeoutMs(
      action.kind,
      rec.event,
      ctx.now(),
      config.hookTimeoutMs,
      config.hookSafetyMarginMs,
    );
    const payload = {
      hook: action.kind,
      attempt: run.attempt,
      deadline: new Date(ctx.now() + timeoutMs).toISOString(),
      dryRun: config.dryRun,
      advisory: isAdvisory(rec.event),
      vm: identity,
      event: rec.event,
    };
    log.info(`${action.kind} hook started`, {
      eventId: rec.eventId,
      eventType: rec.event.EventType,
      advisory: payload.advisory || undefined,
      attempt: run.attempt,
      timeoutSeconds: Math.round(timeoutMs / 1000),
    });
    ctx.track(
      this.runHook(payload, timeoutMs, ctx.stopping.signal)
        .catch(
          (e): HookOutcome => ({
            result: "failed",
            detail: `hook runner failed: ${errorText(e)}`,
            output: "",
          }),
        )
        .then((outcome) => this.done(action, rec.eventId, outcome)),
    );
  }

  private done(action: HookAction, eventId: string, outcome: HookOutcome): void {
    const { ctx } = this;
    const fields = {
      eventId,
      result: outcome.result,
      detail: outcome.detail,
      output: outcome.output || undefined,
    };
    if (outcome.result === "interrupted") {
      // Left as running on purpose: stop() records it as interrupted once everything has ended.
      ctx.log.warn(`${action.kind} hook interrupted`, fields);
      return;
    }
    if (outcome.result === "succeeded") ctx.log.info(`${action.kind} hook succeeded`, fields);
    else ctx.log.error(`${action.kind} hook failed`, fields);
    const finished = hookFinished(
      ctx.state,
      action,
      { ok: outcome.result === "succeeded", detail: outcome.detail },
      ctx.now(),
    );
    ctx.setState(prune(finished, ctx.now()));
    this.startDue(); // a recover may have been waiting for this drain
  }
}
