import { randomUUID } from "node:crypto";
import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import type { FabricEngine } from "../engine/engine";
import { type ControlResult, parseCommand, refused, unwrap } from "../model/controlResult";
import { FABRIC_VIEW, renderDocument } from "../model/document";
import type { TimelineEntry } from "../model/types";
import { documentChanges, type Notification, notificationOf, publishingGroup } from "./changes";
import { CreateSubscription, type CreateSubscriptionInput } from "./commands";
import { EventGridSubscription } from "./subscription";
import type { SubscriptionView } from "./types";

/**
 * The Event Grid system topic (`Microsoft.ResourceNotifications.MaintenanceResources`) and its
 * webhook subscriptions: it hears every new document of the fabric, turns the changes of the
 * groups that opted in (`scheduledEventsPolicy`) into notifications, and hands each to every
 * subscription. Subscriptions are Azure's, not the fabric's: they outlive a reset (the fabric's
 * events start afresh; an event from before the reset is never published again).
 */
export class EventGridService {
  private readonly subscriptions = new Map<string, EventGridSubscription>();
  /** Per opted-in group, the document the notifications were last computed against. */
  private readonly lastDocuments = new Map<string, ScheduledEventsDocument>();
  private generation = -1;
  private unsubscribe: (() => void) | undefined;
  private made = 0;

  constructor(
    private readonly engine: FabricEngine,
    /** Where a GET completes the manual handshake (the main listener's control API). */
    private readonly validationUrl: (subscription: string, code: string) => string,
  ) {}

  subscribe(input: unknown): ControlResult<EventGridSubscription> {
    const p = parseCommand(CreateSubscription, input);
    if (!p.ok) return p;
    const name = p.value.name ?? `subscription-${++this.made}`;
    if (this.subscriptions.has(name.toLowerCase())) {
      return refused(409, `an event subscription named ${name} exists`);
    }
    this.listen();
    const state = this.engine.state();
    const subscription = new EventGridSubscription(name, p.value, {
      topic: `/subscriptions/${state.topology.subscriptionId}`,
      validationUrl: (code) => this.validationUrl(name, code),
      simMs: this.engine.clockView().simMs,
    });
    this.subscriptions.set(name.toLowerCase(), subscription);
    return { ok: true, value: subscription };
  }

  get(name: string): EventGridSubscription | undefined {
    return this.subscriptions.get(name.toLowerCase());
  }

  list(): SubscriptionView[] {
    return [...this.subscriptions.values()].map((s) => s.view());
  }

  /** Delete the subscription: it stops at once (nothing in flight or queued is sent). */
  remove(name: string): SubscriptionView | undefined {
    const s = this.get(name);
    if (!s) return undefined;
    s.stop();
    this.subscriptions.delete(name.toLowerCase());
    if (this.subscriptions.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
    return s.view();
  }

  /**
   * An event of another topic delivered through the same subscriptions: Update Manager's pre- and
   * post-maintenance events (maintenance/patchRuns.ts). Recorded under the run's name, with the
   * pre-event as Scheduled and the post-event as Completed (the delivery log's words).
   */
  publishOther(
    event: Record<string, unknown>,
    label: { eventId: string; group: string; ended: boolean },
  ): void {
    const n: Notification = {
      id: String(event.id),
      eventId: label.eventId,
      group: label.group,
      eventStatus: label.ended ? "Completed" : "Scheduled",
      event,
    };
    for (const s of this.subscriptions.values()) s.enqueue(n);
  }

  stop(): void {
    for (const name of [...this.subscriptions.keys()]) this.remove(name);
  }

  /** Start hearing the fabric: what is in the documents now is not news (a subscription gets what happens after it). */
  private listen(): void {
    if (this.unsubscribe) return;
    const state = this.engine.state();
    this.generation = this.engine.generation;
    this.lastDocuments.clear();
    for (const g of Object.keys(state.groups)) {
      if (publishingGroup(state, g))
        this.lastDocuments.set(g, renderDocument(state, g, FABRIC_VIEW));
    }
    this.unsubscribe = this.engine.subscribe((entry) => this.hear(entry));
  }

  /** Runs inside the fabric's state change: read the state as it is, never make it move. */
  private hear(entry: TimelineEntry): void {
    if (entry.kind !== "document") return;
    if (this.engine.generation !== this.generation) {
      this.generation = this.engine.generation;
      this.lastDocuments.clear();
    }
    const state = this.engine.peek();
    if (!publishingGroup(state, entry.group)) return;
    const previous = this.lastDocuments.get(entry.group);
    this.lastDocuments.set(entry.group, entry.document);
    for (const change of documentChanges(previous, entry.document)) {
      const n = notificationOf(state, entry.group, change, randomUUID(), entry.at.simMs);
      if (!n) continue;
      for (const s of this.subscriptions.values()) s.enqueue(n);
    }
  }
}

/** The topic's subscriptions as tests drive them in-process; failures throw `FabricControlError`. */
export interface EventGridApi {
  /**
   * Create a webhook subscription: the validation handshake starts at once, and every change of
   * an opted-in group's events from now on is delivered once it succeeded.
   */
  subscribe(subscription: CreateSubscriptionInput): EventGridSubscription;
  subscription(name: string): EventGridSubscription | undefined;
  subscriptions(): SubscriptionView[];
  /** Delete a subscription (it stops at once); undefined when there is none of that name. */
  unsubscribe(name: string): SubscriptionView | undefined;
}

export function eventGridApi(service: EventGridService): EventGridApi {
  return {
    subscribe: (subscription) => unwrap(service.subscribe(subscription)),
    subscription: (name) => service.get(name),
    subscriptions: () => service.list(),
    unsubscribe: (name) => service.remove(name),
  };
}
