import { z } from "zod";

/**
 * An event's Azure Change Safety change record as the status API shows it (docs/control-plane.md,
 * "Change Safety"): the record's ARM id, where its open/close calls stand, the last failure.
 */
export const ChangeRecordView = z.object({
  /** The record's ARM id (the change reference of the event's ARM writes); null until made. */
  id: z.string().nullable(),
  step: z.enum(["opening", "open", "closing", "closed", "gaveUp"]),
  attempts: z.number(),
  lastError: z.string().nullable(),
  outcome: z.enum(["Completed", "Cancelled", "Failed"]).nullable(),
});
export type ChangeRecordView = z.infer<typeof ChangeRecordView>;
