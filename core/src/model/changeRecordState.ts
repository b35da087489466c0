import { z } from "zod";

/**
 * An event's Azure Change Safety change record (docs/control-plane.md, "Change Safety"), as
 * stored with the event: its ARM id once the RP made it (the change reference every ARM write
 * for the event then carries), and where its claim → act → record cycle stands. Absent in rows
 * written before change records existed, and for every event while they are off.
 */
export const CHANGE_RECORD_STEPS = ["opening", "open", "closing", "closed", "gaveUp"] as const;

/** How the change ended, in words the record's comments use (the RP's own status is read-only). */
export const CHANGE_RECORD_OUTCOMES = ["Completed", "Cancelled", "Failed"] as const;
export type ChangeRecordOutcomeName = (typeof CHANGE_RECORD_OUTCOMES)[number];

export const ChangeRecordState = z.object({
  /** The record's ARM id; null until the RP answered the create. */
  id: z.string().nullable(),
  step: z.enum(CHANGE_RECORD_STEPS),
  /** When an instance claimed the current call (null: none in flight). */
  claimedAt: z.number().nullable(),
  /** Calls made for the current step (opening, then closing). */
  attempts: z.number(),
  /** The last call's failure, as the history says it (never a token: none reaches here). */
  lastError: z.string().nullable(),
  outcome: z.enum(CHANGE_RECORD_OUTCOMES).nullable(),
});
export type ChangeRecordState = z.infer<typeof ChangeRecordState>;
