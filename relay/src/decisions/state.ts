import { dict, IsoTime } from "@quiesce/protocol";
import { ScheduledEvent } from "@quiesce/protocol/imds";
import { ApprovalResult, HookRun } from "@quiesce/protocol/relay";
import { z } from "zod";

/**
 * What the relay remembers across restarts: one record per event that named this VM, and the
 * recent approval results. Kept on disk (see stateFile.ts) and reported as-is (level-triggered).
 */

export const HookKind = z.enum(["drain", "recover"]);
export type HookKind = z.infer<typeof HookKind>;

/**
 * An event this relay tracks because it named this VM: the event, and the drain and recover it
 * ran for it. (The coordinator's EventRecord is another thing: its row per event of a cluster.)
 */
export const TrackedEvent = z.object({
  /** As first seen in the document; echoed to IMDS and the coordinator exactly. */
  eventId: z.string().min(1),
  /** The latest version seen: the recover hook still needs it after the event left the document. */
  event: ScheduledEvent,
  firstSeenAt: IsoTime,
  /** Set when the event left the document (completed or cancelled). */
  goneAt: IsoTime.optional(),
  /** The coordinator directed a recover (e.g. an operator ended the event early). */
  recoverRequested: z.boolean().optional(),
  drain: HookRun.optional(),
  recover: HookRun.optional(),
  /** A maintenance window holds its drain until then (deferral.ts; this relay's clock). */
  deferredUntil: IsoTime.optional(),
  /** First seen in a cluster with windows: its drain waits for the answer to its report until then. */
  awaitAnswerUntil: IsoTime.optional(),
});
export type TrackedEvent = z.infer<typeof TrackedEvent>;

export const RelayState = z.object({
  stateVersion: z.literal(1),
  /** Keyed by eventKey(EventId): ids compare case-insensitively. */
  // Null-prototype (dict.ts): an EventId such as "constructor" is a key like any other.
  events: z.record(z.string(), TrackedEvent).transform((r) => dict(Object.entries(r))),
  approvals: z.array(ApprovalResult),
  /** The coordinator's last applied answer carried defer directives: the cluster has windows. */
  windows: z.boolean().optional(),
  /** …and the event types its windows never defer: those drain without waiting for an answer. */
  windowsExempt: z.array(z.string()).optional(),
});
export type RelayState = z.infer<typeof RelayState>;

export const emptyState = (): RelayState => ({ stateVersion: 1, events: dict(), approvals: [] });
