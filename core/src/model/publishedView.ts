import { PublishedEventStatus } from "@quiesce/protocol/published";
import { z } from "zod";

/**
 * What Azure published of an event, off the VM: Event Grid deliveries and Resource Graph rows
 * (preview; docs/control-plane.md), statuses as protocol's `PublishedEventStatus` spells them.
 * Kept on the event record (state.ts) beside the relays' views, which it never overrides: it can
 * add VMs to `Resources`, move the status forward and end the event (`Completed`, `Canceled`:
 * states IMDS never shows), but it never removes a VM nor marks one drained (published.ts).
 *
 * It is the join of every delivery so far (publishedJoin.ts): whatever their order and
 * repetition, the same deliveries give the same view.
 */
export const PublishedView = z.object({
  /** The most advanced status delivered (PUBLISHED_RANK). */
  status: PublishedEventStatus,
  /** The channel, scope and time of the greatest delivery (publishedJoin.ts, `compareDeliveries`). */
  source: z.enum(["eventGrid", "resourceGraph"]),
  /** The event's ARM scope (availability set, scale set or VM), as Azure spells it: where to acknowledge it. */
  scope: z.string(),
  /** Azure's time of the change, when the channel gave one (orders reordered deliveries). */
  observedAt: z.number().nullable(),
  /** When the coordinator first took this status. */
  receivedAt: z.number(),
  /**
   * The newest `Scheduled` delivery (greatest observedAt, then latest NotBefore): the event was
   * announced, and when it may start. Absent: none delivered, or a row of an earlier release.
   */
  scheduled: z
    .object({ notBefore: z.number().nullable(), observedAt: z.number().nullable() })
    .optional(),
});
export type PublishedView = z.infer<typeof PublishedView>;

/**
 * Statuses only move forward. The two terminal ones cannot both be true of one event; should
 * both be delivered, `Completed` stands, whichever came first: it says the event ran, so every
 * drained VM's recover is awaited, where `Canceled` would not wait for them.
 */
export const PUBLISHED_RANK: Record<PublishedEventStatus, number> = {
  Scheduled: 0,
  Started: 1,
  Canceled: 2,
  Completed: 3,
};
