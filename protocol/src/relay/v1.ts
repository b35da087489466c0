import { z } from "zod";
import { VmIdentity } from "../imds/instanceMetadata";
import { ImdsProblems } from "../imds/problems";
import { ScheduledEventsDocument } from "../imds/scheduledEvents";
import { ClusterName, EventIdText, IsoTime, VmName } from "../names";
import { describeZodError, type Result } from "../result";
import { AnswerAttestation, ReportAttestation } from "./attestation";
import { assertSupportedProtocol, ProtocolVersion } from "./version";

/**
 * Protocol v1: the relay reports what it sees and what its hooks did; the coordinator answers
 * with directives and when to report next. Reports are level-triggered: each carries the relay's
 * whole current view, so a lost or reordered report is repaired by the next one.
 *
 * Compatibility (version.ts): a 1.x minor only adds optional fields. So every shape a peer
 * receives ignores fields it does not know (z.object strips them; the body size limit still
 * bounds them), and the relay parses directives one by one, skipping a kind it does not know
 * instead of refusing the whole answer. Fields a 1.0 peer requires stay on the wire.
 */

export const HookStatus = z.enum(["running", "succeeded", "failed", "interrupted"]);
export type HookStatus = z.infer<typeof HookStatus>;

export const HookRun = z.object({
  status: HookStatus,
  attempt: z.number().int().min(1).max(1000),
  startedAt: IsoTime,
  finishedAt: IsoTime.optional(),
  /** Bounded summary of the hook's outcome (exit code, timeout, last output line). */
  detail: z.string().max(1024).optional(),
});
export type HookRun = z.infer<typeof HookRun>;

/** The relay's local hook state for one event it acted on (its own VM was named). */
export const EventHooks = z.object({
  eventId: EventIdText,
  drain: HookRun.optional(),
  recover: HookRun.optional(),
});
export type EventHooks = z.infer<typeof EventHooks>;

export const ApprovalOutcome = z.enum(["accepted", "rejected", "failed", "skipped"]);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

/** What happened when the relay acted on an approve directive. */
export const ApprovalResult = z.object({
  eventId: EventIdText,
  outcome: ApprovalOutcome,
  at: IsoTime,
  httpStatus: z.number().int().min(100).max(599).optional(),
  detail: z.string().max(1024).optional(),
});
export type ApprovalResult = z.infer<typeof ApprovalResult>;

export const RelayInfo = z.object({
  version: z.string().min(1).max(64),
  /** Random per relay process start: the coordinator shows it and tells restarts apart by it. */
  bootId: z.string().min(1).max(64),
  /**
   * Counts the reports of one relay process. Never read by the coordinator (the document's
   * incarnation orders reports); still sent because 1.0 coordinators require it. Drop in 2.0.
   */
  seq: z.number().int().nonnegative().optional(),
  dryRun: z.boolean().optional(),
});
export type RelayInfo = z.infer<typeof RelayInfo>;

/** The relay's IMDS reads failing in a row (unreachable, or a malformed document); absent when healthy. */
export const ImdsHealth = z.object({
  failuresInARow: z.number().int().min(1),
  since: IsoTime,
  lastError: z.string().max(512),
});
export type ImdsHealth = z.infer<typeof ImdsHealth>;

export const RelayReport = z.object({
  protocol: ProtocolVersion,
  cluster: ClusterName,
  vm: VmIdentity.extend({ name: VmName }),
  relay: RelayInfo,
  /** The latest document read from IMDS; null until the first successful read. */
  document: ScheduledEventsDocument.nullable(),
  hooks: z.array(EventHooks).max(200),
  approvals: z.array(ApprovalResult).max(100),
  /** Never read (the coordinator's clock decides); still sent because 1.0 coordinators require it. */
  sentAt: IsoTime.optional(),
  /** Optional: older relays do not send it, and the coordinator needs nothing from it to decide. */
  imds: ImdsHealth.optional(),
  /** 1.1: what the relay could not read in its IMDS document (absent or empty: nothing). */
  imdsProblems: ImdsProblems.optional(),
  /** 1.2: the binding token, a proof answering a challenge; present (even empty) if it can attest. */
  attestation: ReportAttestation.optional(),
});
export type RelayReport = z.infer<typeof RelayReport>;

export const ApproveDirective = z.object({
  kind: z.literal("approve"),
  /** Post StartRequests for exactly these ids, while still Scheduled in the latest document. */
  eventIds: z.array(EventIdText).min(1).max(100),
  /**
   * Informational: relays do not act on it (their clock may be skewed; the coordinator's lease
   * decides). Still sent because 1.0 relays require it. Drop in 2.0.
   */
  leaseExpiresAt: IsoTime,
});
export type ApproveDirective = z.infer<typeof ApproveDirective>;

export const RecoverDirective = z.object({
  kind: z.literal("recover"),
  eventId: EventIdText,
});
export type RecoverDirective = z.infer<typeof RecoverDirective>;

/**
 * Maintenance windows (policy `maintenanceWindows`): hold the drain of these events (ids as the
 * relay's document spells them) for `untilSeconds` from the answer's arrival (relative: a relay's
 * clock may be skewed); an event of the reported document not named is not held. Any defer
 * directive, even naming none, says the cluster has windows: the relay then waits (a few seconds,
 * bounded) for the answer to its report of a new event before draining it. A relay that does not
 * know this kind skips it and drains at once, as before windows; the coordinator still holds the
 * approval. A relay the coordinator stops answering drains when the hold runs out.
 */
export const DeferDirective = z.object({
  kind: z.literal("defer"),
  eventIds: z.array(EventIdText).max(100),
  /** Two weeks at most: past that, the weekly windows repeat (the coordinator never asks more). */
  untilSeconds: z.number().nonnegative().max(1_209_600),
  /** The rule that applied, for the relay's log. */
  reason: z.string().max(512).optional(),
  /**
   * Event types the cluster's windows never defer (`exemptEventTypes`): a new event of one drains
   * at once, without waiting for the answer about it (a Preempt gives seconds).
   */
  exemptEventTypes: z.array(z.string().max(64)).max(16).optional(),
});
export type DeferDirective = z.infer<typeof DeferDirective>;

export const Directive = z.discriminatedUnion("kind", [
  ApproveDirective,
  RecoverDirective,
  DeferDirective,
]);
export type Directive = z.infer<typeof Directive>;

export const ReportResponse = z.looseObject({
  protocol: ProtocolVersion,
  /** false when the report was older than one already applied (stale incarnation). */
  applied: z.boolean(),
  nextReportInSeconds: z.number().positive().max(3600),
  directives: z.array(Directive),
  /**
   * 1.1: ids of the report's `hooks` entries storage already held, exactly as reported and
   * durably (QUIESCE_STORAGE_SETTLE_SECONDS), before this report (or whose event ended or is not
   * tracked). A relay keeps reporting at `activeReportSeconds` until every hook state it reported
   * is listed: an answer alone does not prove the write survived a storage crash.
   */
  hooksStored: z.array(EventIdText).max(200).optional(),
  /** 1.1: the cluster's active report interval, for the relay's own fast cadence. */
  activeReportSeconds: z.number().positive().max(3600).optional(),
  /** 1.2: how the report was taken (bound to the VM by attestation, or not), a challenge, a token. */
  attestation: AnswerAttestation.optional(),
});
export type ReportResponse = z.infer<typeof ReportResponse>;

/** The answer as a relay reads it: directives are parsed one by one (parseReportResponse). */
const ReportResponseEnvelope = ReportResponse.extend({
  directives: z.array(z.unknown()).max(200),
});

/** A directive the relay skipped: a newer coordinator's kind, or a field it cannot read. */
export interface SkippedDirective {
  kind: string;
  error: string;
}

/**
 * Parse a coordinator's answer: the envelope must be right, but a directive this relay does not
 * understand is skipped on its own (and named), so a newer coordinator never silences an older
 * relay's other directives.
 */
export function parseReportResponse(
  body: unknown,
): ParseResult<{ response: ReportResponse; skipped: SkippedDirective[] }> {
  const envelope = ReportResponseEnvelope.safeParse(body);
  if (!envelope.success) return { ok: false, error: describeZodError(envelope.error) };
  const directives: Directive[] = [];
  const skipped: SkippedDirective[] = [];
  for (const raw of envelope.data.directives) {
    const d = Directive.safeParse(raw);
    if (d.success) directives.push(d.data);
    else {
      const kind = (raw as { kind?: unknown } | null)?.kind;
      skipped.push({
        kind: typeof kind === "string" ? kind.slice(0, 64) : "(none)",
        error: describeZodError(d.error),
      });
    }
  }
  return { ok: true, value: { response: { ...envelope.data, directives }, skipped } };
}

export type ParseResult<T> = Result<T>;

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
