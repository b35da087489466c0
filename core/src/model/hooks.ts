import type { HookRun } from "@quiesce/protocol/relay";

const RANK: Record<HookRun["status"], number> = {
  running: 0,
  interrupted: 1,
  failed: 2,
  succeeded: 2,
};

/**
 * Hook state only moves forward: a later attempt wins; within an attempt a finished run beats a
 * running one. So a duplicated or reordered report can never roll "drained" back to "draining".
 */
export function newerHookRun(
  stored: HookRun | null,
  reported: HookRun | undefined,
): HookRun | null {
  if (!reported) return stored;
  if (!stored) return reported;
  if (reported.attempt !== stored.attempt)
    return reported.attempt > stored.attempt ? reported : stored;
  if (RANK[reported.status] > RANK[stored.status]) return reported;
  return stored;
}

export function sameHookRun(a: HookRun | null, b: HookRun | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.status === b.status &&
    a.attempt === b.attempt &&
    a.startedAt === b.startedAt &&
    a.finishedAt === b.finishedAt &&
    a.detail === b.detail
  );
}
