import type { Policy } from "@quiesce/protocol/policy";
import { type EventRecord, LIVENESS_GRANULARITY_SHARE, type Member } from "../model/state";

/**
 * How long a relay may stay silent and still count as live. It follows the cadence the
 * coordinator asked of it: a relay that sees events reports every `activeReportSeconds` (a
 * bystander, named by none, at most every third of this timeout: cadence.ts), and at once on
 * every document change, so `livenessTimeoutSeconds` applies; an idle relay reports
 * every `idleReportSeconds` (5 min by default, to keep an idle VM nearly free), so the longer
 * `idleLivenessTimeoutSeconds` applies. What it costs is only how soon a silent idle relay is
 * reported (coverage alerts): approval never relies on an idle relay's liveness alone, see
 * `isLiveForEvent`.
 */
export function livenessTimeoutMs(member: Member, policy: Policy): number {
  return (
    (member.eventKeys.length > 0
      ? policy.livenessTimeoutSeconds
      : policy.idleLivenessTimeoutSeconds) * 1000
  );
}

export function isLive(member: Member | undefined, now: number, policy: Policy): boolean {
  return member !== undefined && now - member.lastSeenAt <= livenessTimeoutMs(member, policy);
}

/**
 * Liveness as an event sees it. Every VM named in `Resources` sees the event in its own document
 * (same group), and a running relay reports within about a second of its document changing,
 * which rewrites its member row (its event keys change). So a relay not heard from since the
 * event was first seen, `livenessTimeoutSeconds` after that, is dead whatever its idle timeout
 * says: a relay that died while idle stops counting as live for the event as quickly as it did
 * with a 20 s heartbeat, and a relay that comes back is live at once (its first report).
 */
export function isLiveForEvent(
  member: Member | undefined,
  event: EventRecord,
  now: number,
  policy: Policy,
): boolean {
  if (!isLive(member, now, policy) || member === undefined) return false;
  const silentSinceEvent = member.lastSeenAt < event.firstSeenAt;
  return !(silentSinceEvent && now - event.firstSeenAt > policy.livenessTimeoutSeconds * 1000);
}

/**
 * lastSeenAt is only rewritten when it is this old: a heartbeat inside the granularity changes
 * nothing, so it costs no write (and no read on the instance that holds the idle member row).
 * The timeout allows for it (a live relay is at most granularity + report interval behind).
 * Without a member, the active timeout's granularity (the shorter one).
 */
export function livenessGranularityMs(policy: Policy, member?: Member): number {
  const timeout = member ? livenessTimeoutMs(member, policy) : policy.livenessTimeoutSeconds * 1000;
  return timeout * LIVENESS_GRANULARITY_SHARE;
}
