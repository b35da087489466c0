import { notBeforeMs, type ScheduledEvent } from "@quiesce/protocol/imds";
import type { HookKind } from "./state";

/** Even with NotBefore (nearly) passed a drain gets this long: Azure may still wait for others. */
export const MIN_HOOK_TIMEOUT_MS = 5_000;

/**
 * A drain must finish `margin` before NotBefore (so the event can still be approved early),
 * and never run longer than the configured cap. A recover, or a Started event (no NotBefore),
 * gets the cap.
 */
export function hookTimeoutMs(
  kind: HookKind,
  event: Pick<ScheduledEvent, "NotBefore">,
  now: number,
  capMs: number,
  marginMs: number,
): number {
  if (kind === "recover") return capMs;
  const notBefore = notBeforeMs(event);
  if (notBefore === null) return capMs;
  const untilDeadline = notBefore - marginMs - now;
  return Math.min(capMs, Math.max(MIN_HOOK_TIMEOUT_MS, untilDeadline));
}
