import { z } from "zod";
import { VmIdentity } from "../imds/instanceMetadata";
import { ScheduledEventsDocument } from "../imds/scheduledEvents";
import { ClusterName, EventIdText, IsoTime, VmName } from "./names";
import { assertSupportedProtocol, ProtocolVersion } from "./version";

/**
 * Protocol v1: the relay reports what it sees and what its hooks did; the coordinator answers
 * with directives and when to report next. Reports are level-triggered: each carries the relay's
 * whole current view, so a lost or reordered report is repaired by the next one.
 */

export const HookStatus = z.enum(["running", "succeeded", "failed", "interrupted"]);
export type HookStatus = z.infer<typeof HookStatus>;

export const HookRun = z.strictObject({
  status: HookStatus,
  attempt: z.number().int().min(1).max(1000),
  startedAt: IsoTime,
  finishedAt: IsoTime.optional(),
  /** Bounded summary of the hook's outcome (exit code, timeout, last output line). */
  detail: z.string().max(1024).optional(),
});
export type HookRun = z.infer<typeof HookRun>;

/** The relay's local hook state for one event it acted on (its own VM was named). */
export const EventHooks = z.strictObject({
  eventId: EventIdText,
  drain: HookRun.optional(),
  recover: HookRun.optional(),
});
export type EventHooks = z.infer<typeof EventHooks>;

export const ApprovalOutcome = z.enum(["accepted", "rejected", "failed", "skipped"]);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

/** What happened when the relay acted on an approve directive. */
export const ApprovalResult = z.strictObject({
  eventId: EventIdText,
  outcome: ApprovalOutcome,
  at: IsoTime,
  httpStatus: z.number().int().min(100).max(599).optional(),
  detail: z.string().max(1024).optional(),
});
export type ApprovalResult = z.infer<typeof ApprovalResult>;

export const RelayInfo = z.strictObject({
  version: z.string().min(1).max(64),
  /** Random per relay process start: orders reports across restarts together with `seq`. */
  bootId: z.string().min(1).max(64),
  /** Increases with every report a relay process sends. */
  seq: z.number().int().nonnegative(),
  dryRun: z.boolean().optional(),
});
export type RelayInfo = z.infer<typeof RelayInfo>;

/** The relay's IMDS reads failing in a row (unreachable, or a malformed document); absent when healthy. */
export const ImdsHealth = z.strictObject({
  failuresInARow: z.number().int().min(1),
  since: IsoTime,
  lastError: z.string().max(512),
});
export type ImdsHealth = z.infer<typeof ImdsHealth>;

export const RelayReport = z.strictObject({
  protocol: ProtocolVersion,
  cluster: ClusterName,
  vm: VmIdentity.extend({ name: VmName }),
  relay: RelayInfo,
  /** The latest document read from IMDS; null until the first successful read. */
  document: ScheduledEventsDocument.nullable(),
  hooks: z.array(EventHooks).max(200),
  approvals: z.array(ApprovalResult).max(100),
  sentAt: IsoTime,
  /** Optional: older relays do not send it, and the coordinator needs nothing from it to decide. */
  imds: ImdsHealth.optional(),
});
export type RelayReport = z.infer<typeof RelayReport>;

export const ApproveDirective = z.strictObject({
  kind: z.literal("approve"),
  /** Post StartRequests for exactly these ids, while still Scheduled in the latest document. */
  eventIds: z.array(EventIdText).min(1).max(100),
  leaseExpiresAt: IsoTime,
});
export type ApproveDirective = z.infer<typeof ApproveDirective>;

export const RecoverDirective = z.strictObject({
  kind: z.literal("recover"),
  eventId: EventIdText,
});
export type RecoverDirective = z.infer<typeof RecoverDirective>;

export const Directive = z.discriminatedUnion("kind", [ApproveDirective, RecoverDirective]);
export type Directive = z.infer<typeof Directive>;

export const ReportResponse = z.looseObject({
  protocol: ProtocolVersion,
  /** false when the report was older than one already applied (stale incarnation or seq). */
  applied: z.boolean(),
  nextReportInSeconds: z.number().positive().max(3600),
  directives: z.array(Directive),
});
export type ReportResponse = z.infer<typeof ReportResponse>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parse an untrusted report body: version first (clear refusal), then the whole shape. */
export function parseRelayReport(body: unknown): ParseResult<RelayReport> {
  try {
    assertSupportedProtocol(body);
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  const parsed = RelayReport.safeParse(body);
  if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
  return { ok: true, value: parsed.data };
}

/** One line per problem, each naming the path, e.g. `vm.name: Too small`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length ? i.path.join(".") : "(body)"}: ${i.message}`)
    .join("; ");
}
