import { z } from "zod";

/**
 * What Azure's control plane last published of an event, off the VM: an Event Grid delivery or a
 * Resource Graph row (preview; docs/control-plane.md). Kept on the event record (state.ts) beside
 * the relays' views, which it never overrides: it can add VMs to `Resources`, move the status
 * forward and end the event (`Completed`, `Canceled`: states IMDS never shows), but it never
 * removes a VM nor marks one drained (controlPlaneEvents.ts).
 */
export const PUBLISHED_STATUSES = ["Scheduled", "Started", "Completed", "Canceled"] as const;
export type PublishedStatus = (typeof PUBLISHED_STATUSES)[number];

export const PublishedView = z.object({
  status: z.enum(PUBLISHED_STATUSES),
  source: z.enum(["eventGrid", "resourceGraph"]),
  /** The event's ARM scope (availability set, scale set or VM), as Azure spells it: where to acknowledge it. */
  scope: z.string(),
  /** Azure's time of the change, when the channel gave one (orders reordered deliveries). */
  observedAt: z.number().nullable(),
  /** When the coordinator first took this status. */
  receivedAt: z.number(),
});
export type PublishedView = z.infer<typeof PublishedView>;

/** Statuses only move forward; the two terminal ones rank alike (the first one seen stands). */
export const PUBLISHED_RANK: Record<PublishedStatus, number> = {
  Scheduled: 0,
  Started: 1,
  Completed: 2,
  Canceled: 2,
};
