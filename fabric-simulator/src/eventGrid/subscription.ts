import { randomUUID } from "node:crypto";
import { type ControlResult, parseCommand, unwrap } from "../model/controlResult";
import {
  type Answer,
  COMPRESSED_RETRY_DELAYS_MS,
  deliveryHeaders,
  handshakeOutcome,
  type Notification,
  retryDelay,
  validationEvent,
  verdict,
} from "./changes";
import { type CreateSubscription, DeliveryFaults } from "./commands";
import { WebhookPoster } from "./post";
import {
  type DeliveryCounters,
  type DeliveryOutcome,
  type DeliveryRecord,
  type Handshake,
  type SubscriptionView,
  zeroCounters,
} from "./types";
import { Waiters } from "./waiters";

/**
 * One Event Grid event subscription to a webhook: the validation handshake first, then every
 * notification the fabric hands it, one POST at a time in the order they came (so without faults
 * a receiver sees them in order), with Event Grid's retry rules and the faults a test asks for.
 */

interface Outgoing {
  readonly record: DeliveryRecord;
  readonly body: string;
  /** Not yet past the faults (a retry or a released hold is not faulted again). */
  fresh: boolean;
}

const KEEP_RECORDS = 10_000;

export class EventGridSubscription {
  private handshakeState: Handshake;
  private readonly poster: WebhookPoster;
  private readonly queue: Outgoing[] = [];
  private held: Outgoing | undefined;
  private sending = false;
  private paused = false;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly faults = { duplicate: 0, drop: 0, reorder: 0 };
  private readonly counters: DeliveryCounters = zeroCounters();
  private readonly records: DeliveryRecord[] = [];
  private readonly waiters = new Waiters(
    () => this.isSettled(),
    () => this.view(),
  );

  constructor(
    readonly name: string,
    private readonly o: CreateSubscription,
    origin: { topic: string; validationUrl: (code: string) => string; simMs: number },
  ) {
    const code = randomUUID();
    this.handshakeState = {
      state: "pending",
      validationCode: code,
      validationUrl: origin.validationUrl(code),
    };
    this.poster = new WebhookPoster(new URL(o.endpointUrl), o.timeoutMs);
    const event = validationEvent(
      randomUUID(),
      origin.topic,
      code,
      this.handshakeState.validationUrl,
      origin.simMs,
    );
    void this.poster
      .post(JSON.stringify([event]), deliveryHeaders(this.name, "SubscriptionValidation", 0))
      .then((answer) => this.validated(answer));
  }

  get handshake(): Handshake {
    return this.handshakeState;
  }

  private validated(answer: Answer): void {
    // Stopped, or validated through validationUrl while the POST was out: nothing to decide.
    if (this.stopped || this.handshakeState.state !== "pending") return;
    const state = handshakeOutcome(answer, this.handshakeState.validationCode);
    this.handshakeState = {
      ...this.handshakeState,
      state,
      answer: "error" in answer ? { error: answer.error } : { status: answer.status },
      ...(state === "succeeded" ? { validatedBy: "validationResponse" as const } : {}),
    };
    // Event Grid never creates a subscription that failed validation: nothing queued goes out.
    if (state === "failed") for (const o of this.queue.splice(0)) this.finish(o, "unvalidated");
    this.pump();
  }

  /** The manual handshake: a GET on `validationUrl` (Azure gives it 10 minutes; not enforced). */
  validateByUrl(code: string): boolean {
    const h = this.handshakeState;
    if (this.stopped || h.state === "failed" || code !== h.validationCode) return false;
    if (h.state !== "succeeded") {
      this.handshakeState = { ...h, state: "succeeded", validatedBy: "validationUrl" };
      this.pump();
    }
    return true;
  }

  /** A change of an opted-in group's events, to deliver. */
  enqueue(n: Notification): void {
    if (this.stopped) return;
    const o: Outgoing = {
      record: this.track(n, false),
      body: JSON.stringify([n.event]),
      fresh: true,
    };
    if (this.handshakeState.state === "failed") this.finish(o, "unvalidated");
    else {
      this.queue.push(o);
      this.pump();
    }
  }

  private track(
    n: Pick<Notification, "id" | "eventId" | "group" | "eventStatus">,
    duplicate: boolean,
  ) {
    const { id, eventId, group, eventStatus } = n;
    const record: DeliveryRecord = {
      ...{ id, eventId, group, eventStatus, duplicate },
      outcome: "pending",
      attempts: 0,
      answers: [],
    };
    this.records.push(record);
    if (this.records.length > KEEP_RECORDS) this.records.shift();
    return record;
  }

  private pump(): void {
    while (
      !this.sending &&
      !this.stopped &&
      !this.paused &&
      this.handshakeState.state === "succeeded"
    ) {
      const o = this.queue.shift();
      if (!o) break;
      if (o.fresh) {
        o.fresh = false;
        if (this.faults.drop > 0) {
          this.faults.drop--;
          this.finish(o, "dropped");
          continue;
        }
        if (this.faults.reorder > 0 && !this.held) {
          this.faults.reorder--;
          this.held = o;
          o.record.outcome = "held";
          continue;
        }
        if (this.faults.duplicate > 0) {
          // The copy goes right after its original: same id, same body.
          this.faults.duplicate--;
          this.counters.duplicated++;
          this.queue.unshift({ record: this.track(o.record, true), body: o.body, fresh: false });
        }
      }
      this.sending = true;
      void this.attempt(o);
    }
    this.checkSettled();
  }

  private async attempt(o: Outgoing): Promise<void> {
    o.record.attempts++;
    o.record.firstSentAtMs ??= Date.now();
    const answer = await this.poster.post(
      o.body,
      deliveryHeaders(this.name, "Notification", o.record.answers.length),
    );
    this.sending = false;
    if (this.stopped) {
      this.checkSettled();
      return;
    }
    o.record.answers.push("error" in answer ? answer.error : answer.status);
    o.record.answeredAtMs = Date.now();
    const v = verdict(answer);
    if (v !== "retry") this.finish(o, v);
    else if (o.record.answers.length >= this.o.maxDeliveryAttempts) this.finish(o, "expired");
    else {
      this.counters.retried++;
      const delays = this.o.retryDelaysMs ?? COMPRESSED_RETRY_DELAYS_MS;
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          this.queue.push(o);
          this.pump();
        },
        retryDelay(delays, o.record.answers.length),
      );
      this.timers.add(timer);
    }
    // The reorder fault: the held delivery goes right after the one that followed it.
    const held = this.held;
    this.held = undefined;
    if (held) this.queue.unshift(held);
    this.pump();
  }

  private finish(o: Outgoing, outcome: DeliveryOutcome): void {
    o.record.outcome = outcome;
    if (outcome === "delivered") this.counters.delivered++;
    else {
      this.counters.dropped++;
      if (outcome === "refused") this.counters.refused++;
    }
    this.checkSettled();
  }

  private isSettled(): boolean {
    const state = this.handshakeState.state;
    if (this.stopped || state === "failed") return true;
    if (state === "pending") return false;
    return !this.sending && this.queue.length === 0 && this.timers.size === 0 && !this.held;
  }

  private checkSettled(): void {
    this.waiters.wake();
  }

  /**
   * Resolves once nothing is left to do: the handshake answered and every delivery delivered or
   * given up (a paused subscription with deliveries queued, a hold the reorder fault keeps, or a
   * subscription awaiting manual validation is not settled). Rejects after `timeoutMs`.
   */
  settled(timeoutMs = 10_000): Promise<SubscriptionView> {
    return this.waiters.wait(
      timeoutMs,
      () => `Event Grid subscription ${this.name} not settled: ${JSON.stringify(this.view())}`,
    );
  }

  /** Set the faults for the next deliveries (each given count replaces the one left). */
  setFaults(input: unknown): ControlResult<SubscriptionView> {
    const p = parseCommand(DeliveryFaults, input);
    if (!p.ok) return p;
    for (const k of ["duplicate", "drop", "reorder"] as const) {
      const n = p.value[k];
      if (n !== undefined) this.faults[k] = n;
    }
    return { ok: true, value: this.view() };
  }

  injectFaults = (faults: { duplicate?: number; drop?: number; reorder?: number }) =>
    unwrap(this.setFaults(faults));

  /** Hold every delivery (they queue) until `resume`. */
  pause(): SubscriptionView {
    this.paused = true;
    return this.view();
  }

  resume(): SubscriptionView {
    this.paused = false;
    this.pump();
    return this.view();
  }

  deliveries(): DeliveryRecord[] {
    return this.records.map((r) => ({ ...r, answers: [...r.answers] }));
  }

  view(): SubscriptionView {
    return {
      name: this.name,
      endpointUrl: this.o.endpointUrl,
      handshake: this.handshakeState,
      counters: { ...this.counters },
      paused: this.paused,
      faults: { ...this.faults },
      waiting: this.queue.length + this.timers.size + (this.held ? 1 : 0) + (this.sending ? 1 : 0),
      settled: this.isSettled(),
    };
  }

  /** No timer, socket or request outlives this; whoever waits on `settled()` is let go. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.poster.close();
    this.checkSettled();
  }
}
