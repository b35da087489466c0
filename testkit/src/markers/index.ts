import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Drain and recover hooks as real shell commands that leave marker files, so a test can say
 * WHEN (wall-clock ms, the same clock as the simulator's `realMs`) and WHERE (which VM, which
 * event) each hook ran. One file per hook, VM and event: `<hook>.<vm>.<EventId>`, with a
 * `start <ms>` and an `end <ms>` line per run. How long a hook sleeps is read at run time from
 * `sleep.<hook>.<vm>` (0.2 s when absent), so a test can make one VM the slow drainer; and a
 * hook then waits as long as `hold.<hook>.<vm>` exists, so a test can keep a drain running until
 * it has seen what must happen meanwhile, however slow the machine.
 */

export interface HookRun {
  start: number;
  end?: number;
}

export interface Markers {
  readonly dir: string;
  /** QUIESCE_DRAIN_COMMAND / QUIESCE_RECOVER_COMMAND for every relay. */
  readonly command: string;
  setHookSeconds(hook: "drain" | "recover", vm: string, seconds: number): void;
  /** The VM's next runs of `hook` do not end until release(). */
  hold(hook: "drain" | "recover", vm: string): void;
  release(hook: "drain" | "recover", vm: string): void;
  runs(hook: "drain" | "recover", vm: string, eventId: string): HookRun[];
  /** Every VM that ran `hook` for the event. */
  vmsThatRan(hook: "drain" | "recover", eventId: string): string[];
  remove(): void;
}

export function hookMarkers(): Markers {
  const dir = mkdtempSync(join(tmpdir(), "quiesce-e2e-hooks-"));
  // `date +%s%3N` is GNU date (Linux CI); the file name parts come from the relay's env.
  const command = [
    `d='${dir}'`,
    'f="$d/$QUIESCE_HOOK.$QUIESCE_VM_NAME.$QUIESCE_EVENT_ID"',
    'echo "start $(date +%s%3N)" >> "$f"',
    's=$(cat "$d/sleep.$QUIESCE_HOOK.$QUIESCE_VM_NAME" 2>/dev/null || echo 0.2)',
    'sleep "$s"',
    'while [ -e "$d/hold.$QUIESCE_HOOK.$QUIESCE_VM_NAME" ]; do sleep 0.05; done',
    'echo "end $(date +%s%3N)" >> "$f"',
  ].join("; ");
  const runs = (hook: string, vm: string, eventId: string): HookRun[] => {
    let text: string;
    try {
      text = readFileSync(join(dir, `${hook}.${vm}.${eventId}`), "utf8");
    } catch {
      return [];
    }
    const out: HookRun[] = [];
    for (const line of text.split("\n")) {
      const [what, ms] = line.split(" ");
      if (what === "start") out.push({ start: Number(ms) });
      else if (what === "end" && out.length > 0) {
        const last = out[out.length - 1] as HookRun;
        last.end = Number(ms);
      }
    }
    return out;
  };
  return {
    dir,
    command,
    setHookSeconds(hook, vm, seconds) {
      writeFileSync(join(dir, `sleep.${hook}.${vm}`), String(seconds));
    },
    hold(hook, vm) {
      writeFileSync(join(dir, `hold.${hook}.${vm}`), "");
    },
    release(hook, vm) {
      rmSync(join(dir, `hold.${hook}.${vm}`), { force: true });
    },
    runs,
    vmsThatRan(hook, eventId) {
      const suffix = `.${eventId}`;
      return readdirSync(dir)
        .filter((f) => f.startsWith(`${hook}.`) && f.endsWith(suffix))
        .map((f) => f.slice(hook.length + 1, -suffix.length))
        .sort();
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** When the last run of a hook ended, or undefined while it has not. */
export function lastEnd(runs: HookRun[]): number | undefined {
  const last = runs[runs.length - 1];
  return last?.end;
}
