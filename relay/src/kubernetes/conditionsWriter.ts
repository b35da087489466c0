import { type Backoff, backoffMs, type Clock, delay } from "@quiesce/protocol";
import type { VmIdentity } from "@quiesce/protocol/imds";
import type { RelayState } from "../decisions/state";
import { errorText, type Logger } from "../log";
import { KubeRefused, type KubernetesApi } from "./client";
import { conditionsPatch, type WantedCondition, wantedConditions } from "./conditions";
import { nodeOfVm } from "./names";

/**
 * Writes the KEP-5683 lifecycle conditions (./conditions.ts decides them) on this VM's node, the
 * one whose spec.providerID is the VM's, through PATCH nodes/{name}/status. Level-triggered: it
 * is shown the relay's state after every change and writes the latest wanted set, one write at a
 * time; a newer state replaces one not yet written. Best effort beside the drain, never in its
 * way: a 409 is decided again on a fresh read, other failures are retried with backoff, and a
 * 403/404 (the ClusterRole lacks `nodes/status patch`, or the API server refuses the
 * subresource) is said once as a warning and not retried until the state changes again.
 */

/** Failed writes are tried again after 0.5 s, doubling to 5 s, until a newer state replaces them. */
export const CONDITIONS_RETRY: Backoff = { baseMs: 500, maxMs: 5_000, jitter: "equal" };
const CONFLICT_TRIES = 5;

interface Job {
  readonly wanted: readonly WantedCondition[];
  readonly resourceId: string;
}

export class ConditionsWriter {
  private next: Job | undefined;
  private wantedText = "";
  private running: Promise<void> | undefined;
  private warnedRefusal = false;

  constructor(
    private readonly api: () => Promise<KubernetesApi>,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly retry: Backoff = CONDITIONS_RETRY,
  ) {}

  /** Called after every change of the relay's state; cheap when nothing it decides changed. */
  observe(state: RelayState, vm: VmIdentity, signal: AbortSignal): void {
    const wanted = wantedConditions(state);
    const text = JSON.stringify([vm.resourceId, wanted]);
    if (text === this.wantedText) return;
    this.wantedText = text;
    this.next = { wanted, resourceId: vm.resourceId };
    this.running ??= this.loop(signal).finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once every state shown so far is written (or given up on); for tests. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    let lastError = "";
    while (this.next && !signal.aborted) {
      const job = this.next;
      try {
        await this.write(job);
        if (this.next === job) this.next = undefined;
        failures = 0;
        lastError = "";
      } catch (e) {
        if (e instanceof KubeRefused && (e.refusal.code === 403 || e.refusal.code === 404)) {
          this.refused(e);
          if (this.next === job) this.next = undefined;
          continue;
        }
        const text = errorText(e);
        (text !== lastError ? this.log.warn : this.log.debug)(
          "kubernetes node conditions: write failed; retrying",
          { error: text },
        );
        lastError = text;
        await delay(backoffMs(++failures, this.retry), signal);
      }
    }
  }

  private refused(e: KubeRefused): void {
    const fields = { code: e.refusal.code, reason: e.refusal.reason, error: e.refusal.message };
    if (this.warnedRefusal) {
      this.log.debug("kubernetes node conditions not written", fields);
      return;
    }
    this.warnedRefusal = true;
    this.log.warn(
      "kubernetes node conditions not written: the relay's ClusterRole needs nodes/status patch (docs/aks.md); the drain goes on without them",
      fields,
    );
  }

  private async write(job: Job): Promise<void> {
    const api = await this.api();
    const found = nodeOfVm(await api.listNodes(), job.resourceId);
    // Several nodes of this VM: the drain refuses to pick one, and so do the conditions.
    if (!found.ok)
      return this.log.debug("kubernetes node conditions not written", { error: found.error });
    let node = found.value;
    if (!node) return;
    for (let attempt = 1; ; attempt++) {
      const patch = conditionsPatch(
        node.conditions ?? [],
        job.wanted,
        node.resourceVersion,
        this.clock.now(),
      );
      if (!patch) return;
      try {
        await api.patchNodeStatus(node.name, patch);
        this.log.info("kubernetes node conditions written", {
          node: node.name,
          conditions: patch.status.conditions.map((c) => `${c.type}=${c.status} (${c.reason})`),
        });
        return;
      } catch (e) {
        if (!(e instanceof KubeRefused && e.refusal.code === 409) || attempt >= CONFLICT_TRIES)
          throw e;
        node = await api.readNode(node.name);
      }
    }
  }
}
