import { z } from "zod";

/** The Event Grid publisher's control inputs, parsed the same in-process and over HTTP. */

/** Event subscription names: 3-64 letters, digits and '-' (as Event Grid allows). */
export const SubscriptionName = z
  .string()
  .regex(/^[A-Za-z0-9-]{3,64}$/, "3-64 letters, digits or '-'");

export const CreateSubscription = z.strictObject({
  /** The webhook, e.g. `http://127.0.0.1:7071/api/maintenance/eventgrid?code=KEY`. */
  endpointUrl: z.url({ protocol: /^https?$/ }).max(2048),
  name: SubscriptionName.optional(),
  /** Real ms before each retry (Azure's 10 s, 30 s, 1 min... as 10, 30, 60... ms by default). */
  retryDelaysMs: z.array(z.number().int().min(0).max(3_600_000)).min(1).max(30).optional(),
  /** Event Grid's `maxDeliveryAttempts` (1-30, default 30): then the delivery is dropped. */
  maxDeliveryAttempts: z.number().int().min(1).max(30).default(30),
  /** Real ms to wait for an answer (Azure waits 30 s); a timeout is retried. */
  timeoutMs: z.number().int().min(1).max(120_000).default(5_000),
});
export type CreateSubscription = z.infer<typeof CreateSubscription>;
export type CreateSubscriptionInput = z.input<typeof CreateSubscription>;

/** Faults for the next deliveries (each counts down as deliveries leave). */
export const DeliveryFaults = z
  .strictObject({
    /** Send each of the next N deliveries twice, with the same id. */
    duplicate: z.number().int().min(0).max(10_000).optional(),
    /** Never send the next N deliveries (counted as dropped). */
    drop: z.number().int().min(0).max(10_000).optional(),
    /** Hold each of the next N deliveries and send it after the one that follows it. */
    reorder: z.number().int().min(0).max(10_000).optional(),
  })
  .refine((f) => f.duplicate !== undefined || f.drop !== undefined || f.reorder !== undefined, {
    message: "give duplicate, drop or reorder",
  });
export type DeliveryFaults = z.infer<typeof DeliveryFaults>;
