import { z } from "zod";
import { EventIdText } from "../names";

/**
 * Something in this VM's Scheduled Events document the relay could not read (protocol 1.1).
 * - `document`: the whole document (not JSON, no readable DocumentIncarnation or Events);
 * - `event`: one event whose EventId, EventStatus or Resources cannot be read;
 * - `field`: one field of an otherwise readable event (dropped, or NotBefore unknown).
 * `document` and `event` problems may hide an event that names the VM, so they block approval of
 * every event that names it; `field` problems are shown only.
 */
export const IMDS_PROBLEM_KINDS = ["document", "event", "field"] as const;
export type ImdsProblemKind = (typeof IMDS_PROBLEM_KINDS)[number];

export const ImdsProblem = z.object({
  /** One of IMDS_PROBLEM_KINDS; a kind a newer 1.x relay adds is kept, and blocks (see below). */
  kind: z.string().min(1).max(32),
  /** The event's id when it could be read. */
  eventId: EventIdText.optional(),
  /** The field that could not be read, e.g. "NotBefore", "Events[2].Resources". */
  field: z.string().min(1).max(128).optional(),
  detail: z.string().min(1).max(512),
});
export type ImdsProblem = z.infer<typeof ImdsProblem>;

export const MAX_IMDS_PROBLEMS = 20;

export const ImdsProblems = z.array(ImdsProblem).max(MAX_IMDS_PROBLEMS);

/**
 * Problems that may hide an event from the relay, as opposed to one odd field it worked around.
 * A kind this coordinator does not know is taken as hiding: Azure's NotBefore stays the backstop.
 */
export function hidesEvents(p: Pick<ImdsProblem, "kind">): boolean {
  return p.kind !== "field";
}
