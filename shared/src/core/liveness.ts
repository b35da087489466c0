import type { Policy } from "./policy";
import { LIVENESS_GRANULARITY_SHARE, type Member } from "./state";

export function isLive(member: Member | undefined, now: number, policy: Policy): boolean {
  return member !== undefined && now - member.lastSeenAt <= policy.livenessTimeoutSeconds * 1000;
}

/**
 * lastSeenAt is only rewritten when it is this old: an idle heartbeat inside the granularity
 * changes nothing, so it costs a point read and no write. The timeout allows for it (a live
 * relay is at most granularity + report interval behind).
 */
export function livenessGranularityMs(policy: Policy): number {
  return policy.livenessTimeoutSeconds * 1000 * LIVENESS_GRANULARITY_SHARE;
}
