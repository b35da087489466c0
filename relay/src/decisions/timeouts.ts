import { isAdvisory, notBeforeMs, type ScheduledEvent } from "@quiesce/protocol/imds";
import type { HookKind } from "./state";

/** Even with NotBefore (nearly) passed a drain gets this long: Azure may still wait for others. */
export const MIN_HOOK_TIMEOUT_MS = 5_000;

/**
 * A short notice keeps at most this share of what is left for the margin: a fixed 10 s margin,
 * made for 15-minute notices, would leave a Preempt's 10 s notice (Azure's often is, Azure/
 * karpenter-provider-azure#1769) nothing, and the pods 4 s of grace from the minimum below.
 */
export const MAX_MARGIN_SHARE = 0.2;

/**
 * A drain must finish `margin` before NotBefore (so the event can still be approved early), or
 * a fifth of the time left when that is less, and never run longer than the configured cap. A
 * recover, a Started event (no NotBefore), or an advisory one (nothing happens at its NotBefore:
 * no deadline to race) gets the cap.
 */
export function hookTimeoutMs(
  kind: HookKind,
  event: Pick<ScheduledEvent, "NotBefore"> & Partial<Pick<ScheduledEvent, "EventType">>,
  now: number,
  capMs: number,
  marginMs: number,
): number {
  if (kind === "recover") return capMs;
  if (event.EventType !== undefined && isAdvisory({ EventType: event.EventType })) return capMs;
  const notBefore = notBeforeMs(event);
  if (notBefore === null) return capMs;
  const left = notBefore - now;
  const untilDeadline = left - Math.min(marginMs, Math.max(0, left) * MAX_MARGIN_SHARE);
  return Math.min(capMs, Math.max(MIN_HOOK_TIMEOUT_MS, untilDeadline));
}
