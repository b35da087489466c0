import type { Clock, Logger } from "@quiesce/protocol";
import type { NotificationKind, NotificationSink, Policy } from "@quiesce/protocol/policy";
import { type BackoffOptions, planRetry } from "./backoff";
import type { Notification } from "./due";
import type { Outbox, OutboxRow } from "./outbox";
import { SEND_TIMEOUT_MS, type Sinks } from "./sinks";

/** A claim outlives the longest send, so no other instance takes the row while it is in flight. */
const CLAIM_MS = SEND_TIMEOUT_MS * 6;
/** Rows this instance knows exist: spares a 409 per sweep for every fact still due. */
const KNOWN_MAX = 20_000;
const DELIVER_BATCH = 50;

export interface DeliverySummary {
  delivered: number;
  retried: number;
  dropped: number;
}

/**
 * Told what became of each delivery and each coverage alert raised (the coordinator's metrics);
 * must be cheap and never throw.
 */
export interface DeliveryObserver {
  notification(
    cluster: string,
    kind: NotificationKind,
    sink: NotificationSink,
    outcome: keyof DeliverySummary,
  ): void;
  alert(cluster: string, kind: NotificationKind): void;
}

export interface NotifierDeps {
  outbox: Outbox;
  sinks: Sinks;
  observer: DeliveryObserver;
  clock: Clock;
  backoff: BackoffOptions;
  random?: () => number;
  log?: Logger;
}

/**
 * The imperative shell around the outbox: enqueue due notifications (once per key and sink,
 * however many instances try), deliver what is due under an ETag claim, retry with backoff and
 * jitter, drop past the deadline. Nothing here is awaited by a decision: the report path hands
 * notifications over after its commit and answers the relay at once.
 */
export class Notifier {
  private readonly known = new Set<string>();
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly deps: NotifierDeps) {}

  sinksConfigured(): NotificationSink[] {
    return this.deps.sinks.configured();
  }

  sinksFor(policy: Policy): NotificationSink[] {
    const configured = this.deps.sinks.configured();
    return policy.notify.sinks.filter((s) => configured.includes(s));
  }

  /** Queues each notification for each of the cluster's sinks; returns the rows this call created. */
  async enqueue(ns: readonly Notification[], policy: Policy): Promise<OutboxRow[]> {
    const sinks = this.sinksFor(policy);
    const created: OutboxRow[] = [];
    const now = this.deps.clock.now();
    for (const n of ns) {
      let fresh = false;
      for (const sink of sinks) {
        const id = `${n.cluster}\n${n.key}\n${sink}`;
        if (this.known.has(id)) continue;
        const row = await this.deps.outbox.enqueue(n, sink, now);
        this.remember(id);
        if (row) {
          created.push(row);
          fresh = true;
        }
      }
      if (
        fresh &&
        [
          "relaySilent",
          "groupUncovered",
          "vmNeverRegistered",
          "imdsFailing",
          "attestationFailed",
          "controlPlaneUnavailable",
        ].includes(n.kind)
      )
        this.deps.observer.alert(n.cluster, n.kind);
    }
    return created;
  }

  /** After a commit: queue and deliver in the background; failures are left to the sweep. */
  afterCommit(ns: readonly Notification[], policy: Policy): void {
    if (ns.length === 0 || this.sinksFor(policy).length === 0) return;
    this.track(
      this.enqueue(ns, policy).then((rows) => Promise.all(rows.map((r) => this.deliver(r)))),
    );
  }

  /** Delivers every pending row that is due (the sweep calls this). */
  async deliverDue(): Promise<DeliverySummary> {
    const summary: DeliverySummary = { delivered: 0, retried: 0, dropped: 0 };
    const rows = await this.deps.outbox.due(this.deps.clock.now(), DELIVER_BATCH);
    const results = await Promise.all(rows.map((r) => this.deliver(r)));
    for (const r of results) if (r) summary[r]++;
    return summary;
  }

  /** Deletes rows queued before the cutoff (kept until then for the dedupe and the status API). */
  purge(before: number): Promise<number> {
    return this.deps.outbox.purge(before);
  }

  /** Undelivered rows (pending and dropped), for the status API. */
  undelivered(): Promise<OutboxRow[]> {
    return this.deps.outbox.undelivered();
  }

  /** Resolves once background work started so far has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private async deliver(row: OutboxRow): Promise<keyof DeliverySummary | null> {
    const { outbox, sinks, observer, clock } = this.deps;
    try {
      const claimed = await outbox.claim(row, clock.now() + CLAIM_MS);
      if (!claimed) return null; // another instance took it
      const n = claimed.notification;
      const result = await sinks.send(claimed.sink, n, claimed.rowKey, clock.now());
      const now = clock.now();
      const attempts = claimed.attempts + 1;
      if (result.ok) {
        await outbox.write(claimed, {
          state: "delivered",
          attempts,
          claimUntil: 0,
          deliveredAt: now,
        });
        observer.notification(claimed.cluster, n.kind, claimed.sink, "delivered");
        return "delivered";
      }
      const plan = result.error.retry
        ? planRetry(
            attempts,
            claimed.createdAt,
            now,
            this.deps.backoff,
            (this.deps.random ?? Math.random)(),
          )
        : ({ kind: "drop" } as const);
      if (plan.kind === "drop") {
        await outbox.write(claimed, {
          state: "dropped",
          attempts,
          claimUntil: 0,
          lastError: result.error.reason,
        });
        observer.notification(claimed.cluster, n.kind, claimed.sink, "dropped");
        this.deps.log
          ?.child({ cluster: n.cluster })
          .error(`notification ${n.kind} dropped after ${attempts} attempt(s)`, {
            sink: claimed.sink,
            error: result.error.reason,
          });
        return "dropped";
      }
      await outbox.write(claimed, {
        dueAt: plan.dueAt,
        attempts,
        claimUntil: 0,
        lastError: result.error.reason,
      });
      observer.notification(claimed.cluster, n.kind, claimed.sink, "retried");
      return "retried";
    } catch (e) {
      this.deps.log
        ?.child({ cluster: row.cluster })
        .warn("notification delivery failed", { sink: row.sink, error: e });
      return null;
    }
  }

  private remember(id: string): void {
    this.known.add(id);
    if (this.known.size > KNOWN_MAX) {
      const oldest = this.known.values().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  private track(p: Promise<unknown>): void {
    const tracked = p
      .catch((e: unknown) => this.deps.log?.warn("notification work failed", { error: e }))
      .finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }
}
