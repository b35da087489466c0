import { z } from "zod";
import type { Notification } from "./changes";

/**
 * What an Event Grid subscription shows of itself (in-process and over the control API), with
 * the schemas FabricControlClient reads the answers with, typed by the same interfaces.
 */

export interface Handshake {
  /** pending: the validation event is on its way; awaitingManualAction: answered 200 without the code. */
  readonly state: "pending" | "succeeded" | "awaitingManualAction" | "failed";
  readonly validationCode: string;
  readonly validationUrl: string;
  /** The endpoint's answer to the validation event: its status, or why none came. */
  readonly answer?: { readonly status: number } | { readonly error: string };
  readonly validatedBy?: "validationResponse" | "validationUrl";
}

export interface DeliveryCounters {
  /** POSTs answered 2xx (each copy of a duplicate counts). */
  delivered: number;
  /** Extra copies sent by the duplicate fault. */
  duplicated: number;
  /** Deliveries that will never arrive: the drop fault, refused, out of attempts, or not validated. */
  dropped: number;
  /** Of the dropped, those answered 400, 401, 403 or 413 (never retried). */
  refused: number;
  /** Attempts after a retryable failure (408, 429, 5xx, timeout, no connection). */
  retried: number;
}

export type DeliveryOutcome =
  | "pending"
  | "held"
  | "delivered"
  | "dropped"
  | "refused"
  | "expired"
  | "unvalidated";

export interface DeliveryRecord {
  readonly id: string;
  readonly eventId: string;
  readonly group: string;
  readonly eventStatus: Notification["eventStatus"];
  /** The duplicate fault's second copy (same id). */
  readonly duplicate: boolean;
  outcome: DeliveryOutcome;
  /** POSTs started (an attempt still out has no answer yet). */
  attempts: number;
  /** Each attempt's HTTP status, or the error that stood for one. */
  readonly answers: Array<number | string>;
  /** Real ms of the first POST and of the last answer (benchmarks time deliveries with them). */
  firstSentAtMs?: number;
  answeredAtMs?: number;
}

export interface SubscriptionView {
  readonly name: string;
  readonly endpointUrl: string;
  readonly handshake: Handshake;
  readonly counters: DeliveryCounters;
  readonly paused: boolean;
  /** Faults still to apply to the next deliveries. */
  readonly faults: { duplicate: number; drop: number; reorder: number };
  /** Deliveries waiting: queued, held by the reorder fault, or waiting to retry. */
  readonly waiting: number;
  /** Nothing left to do until the fabric changes again (see `settled()`). */
  readonly settled: boolean;
}

export const zeroCounters = (): DeliveryCounters => ({
  delivered: 0,
  duplicated: 0,
  dropped: 0,
  refused: 0,
  retried: 0,
});

const Counters = z.object({
  delivered: z.number(),
  duplicated: z.number(),
  dropped: z.number(),
  refused: z.number(),
  retried: z.number(),
});

export const SubscriptionAnswer: z.ZodType<SubscriptionView> = z.object({
  name: z.string(),
  endpointUrl: z.string(),
  handshake: z.object({
    state: z.enum(["pending", "succeeded", "awaitingManualAction", "failed"]),
    validationCode: z.string(),
    validationUrl: z.string(),
    answer: z.union([z.object({ status: z.number() }), z.object({ error: z.string() })]).optional(),
    validatedBy: z.enum(["validationResponse", "validationUrl"]).optional(),
  }),
  counters: Counters,
  paused: z.boolean(),
  faults: z.object({ duplicate: z.number(), drop: z.number(), reorder: z.number() }),
  waiting: z.number(),
  settled: z.boolean(),
});

export const DeliveryAnswer: z.ZodType<DeliveryRecord> = z.object({
  id: z.string(),
  eventId: z.string(),
  group: z.string(),
  eventStatus: z.enum(["Scheduled", "Started", "Completed", "Canceled"]),
  duplicate: z.boolean(),
  outcome: z.enum(["pending", "held", "delivered", "dropped", "refused", "expired", "unvalidated"]),
  attempts: z.number(),
  answers: z.array(z.union([z.number(), z.string()])),
});
