import type { HookKind } from "../decisions/state";
import type { HookTargets } from "../options";
import { runCommandHook } from "./command";
import { runHttpHook } from "./http";
import type { HookOutcome } from "./outcome";
import { type HookPayload, hookEnvironment } from "./payload";

export type HookRunner = (
  payload: HookPayload,
  timeoutMs: number,
  signal: AbortSignal,
) => Promise<HookOutcome>;

/** Picks the configured form of each hook; with none configured the hook succeeds at once. */
export function hookRunner(targets: HookTargets): HookRunner {
  const command: Partial<Record<HookKind, string>> = targets.commands;
  const url: Partial<Record<HookKind, string>> = targets.urls;
  return async (payload, timeoutMs, signal) => {
    const body = JSON.stringify(payload);
    const cmd = command[payload.hook];
    if (cmd)
      return runCommandHook({
        command: cmd,
        env: hookEnvironment(payload),
        stdin: body,
        timeoutMs,
        signal,
      });
    const target = url[payload.hook];
    if (target) return runHttpHook({ url: target, body, timeoutMs, signal });
    return { result: "succeeded", detail: `no ${payload.hook} hook configured`, output: "" };
  };
}
