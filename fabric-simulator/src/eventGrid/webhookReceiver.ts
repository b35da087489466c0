import type { IncomingMessage, ServerResponse } from "node:http";
import { parseEventGridDelivery } from "@quiesce/protocol/published";
import { readBody, sendJson } from "../http/io";
import { listen } from "../http/listen";

/**
 * A loopback webhook that answers Event Grid as a subscriber would, and records everything it
 * was sent: for the publisher's tests, and for any test that wants to see what the coordinator's
 * webhook would get. How it answers the validation event, and each notification, is up to the test.
 */

export interface ReceivedRequest {
  /** Arrival order, from 1. */
  readonly seq: number;
  /** `aeg-event-type`: SubscriptionValidation or Notification. */
  readonly eventType: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The JSON body (an array of events), or the text when it was not JSON. */
  readonly body: unknown;
  /** What the receiver answered. */
  readonly status: number;
}

export interface WebhookReceiverOptions {
  /**
   * The validation event's answer: `echo` (200 `{validationResponse: code}`, the default),
   * `noCode` (200 `{}`: Event Grid then awaits the manual handshake), `wrongCode`, or a status.
   */
  readonly validation?: "echo" | "noCode" | "wrongCode" | number;
  /** Keep the validation's answer back until `releaseValidation()`. */
  readonly holdValidation?: boolean;
}

export interface WebhookReceiver {
  readonly url: string;
  requests(): ReceivedRequest[];
  /** The notifications' bodies, in arrival order (each an array of one Event Grid event). */
  notifications(): ReceivedRequest[];
  /** Answer the next notifications with these statuses, in order (then 200 again). */
  respondNext(...statuses: number[]): void;
  /** Send the held validation answer; returns the seq of the last request received before it. */
  releaseValidation(): number;
  close(): Promise<void>;
}

const firstEvent = (body: unknown): Record<string, unknown> | undefined =>
  Array.isArray(body) && body[0] !== null && typeof body[0] === "object"
    ? (body[0] as Record<string, unknown>)
    : undefined;

export async function startWebhookReceiver(
  options: WebhookReceiverOptions = {},
): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const planned: number[] = [];
  let release: (() => void) | undefined;
  let releasedAfter: number | undefined;

  const validationAnswer = (body: unknown): [number, unknown] => {
    const data = firstEvent(body)?.data as { validationCode?: unknown } | undefined;
    const v = options.validation ?? "echo";
    if (typeof v === "number") return [v, { error: "refused" }];
    if (v === "noCode") return [200, {}];
    if (v === "wrongCode") return [200, { validationResponse: "not-the-code" }];
    return [200, { validationResponse: data?.validationCode }];
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    const eventType = req.headers["aeg-event-type"] as string | undefined;
    const seq = received.length + 1;
    const [status, answer] =
      eventType === "SubscriptionValidation"
        ? validationAnswer(body)
        : [planned.shift() ?? 200, {}];
    received.push({ seq, eventType, headers: { ...req.headers }, body, status });
    if (
      eventType === "SubscriptionValidation" &&
      options.holdValidation &&
      releasedAfter === undefined
    ) {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    }
    sendJson(res, status, answer);
  };
  const listener = await listen(handler, "127.0.0.1", 0);

  return {
    url: `${listener.url}/api/maintenance/eventgrid?code=test-key`,
    requests: () => [...received],
    notifications: () => received.filter((r) => r.eventType === "Notification"),
    respondNext: (...statuses) => {
      planned.push(...statuses);
    },
    releaseValidation: () => {
      releasedAfter = received.length;
      release?.();
      return releasedAfter;
    },
    close: () => {
      release?.();
      return listener.close();
    },
  };
}

/**
 * The receiver's notifications as the product's own parser reads them (each must hold one
 * scheduled event): arrival seq, the delivery's id, the event and its status, `aeg-delivery-count`.
 */
export function observedNotifications(r: WebhookReceiver) {
  return r.notifications().map((n) => {
    const parsed = parseEventGridDelivery(n.body);
    if (!parsed.ok || parsed.value.kind !== "events") throw new Error(`unreadable: ${n.seq}`);
    const [o, ...more] = parsed.value.observations;
    if (!o || more.length > 0) throw new Error(`not one event in delivery ${n.seq}`);
    return {
      seq: n.seq,
      id: o.deliveryId,
      eventId: o.event.EventId,
      status: o.event.EventStatus,
      deliveryCount: n.headers["aeg-delivery-count"],
    };
  });
}
