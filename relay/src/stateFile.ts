import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { errorText, parseJsonWith } from "@quiesce/protocol";
import { emptyState, RelayState } from "./decisions/state";

export type LoadedState = { state: RelayState; problem?: string };

/** Read the state file; a missing file is a first start, an unreadable one is set aside. */
export async function loadState(path: string): Promise<LoadedState> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { state: emptyState() };
    throw e;
  }
  const parsed = parseJsonWith(RelayState, text);
  if (!parsed.ok) return { state: emptyState(), problem: await setAside(path, parsed.error) };
  return { state: parsed.value };
}

/**
 * Keep the bad file for a human to read instead of overwriting the evidence, and say where it
 * went: moved aside; else (that name taken, say) copied under another name, since the first
 * state write replaces whatever is left at `path`; else only what was tried.
 */
async function setAside(path: string, why: string): Promise<string> {
  const unreadable = `state file unreadable (${why})`;
  const aside = `${path}.corrupt-${Date.now()}`;
  let moveError: string;
  try {
    await rename(path, aside);
    return `${unreadable}; moved to ${aside}, starting empty`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      return `${unreadable}; removed before it could be moved aside, starting empty`;
    moveError = errorText(e);
  }
  const copy = `${aside}-${randomUUID().slice(0, 8)}`;
  try {
    await copyFile(path, copy, constants.COPYFILE_EXCL);
    return `${unreadable}; could not move it to ${aside} (${moveError}), copied to ${copy}, starting empty`;
  } catch (e) {
    return `${unreadable}; could not move it to ${aside} (${moveError}) nor copy it (${errorText(e)}): left at ${path}, where the first state write replaces it; starting empty`;
  }
}

/**
 * Write atomically: a temp file beside the target, flushed, then renamed over it, so a crash or
 * power cut leaves either the old state or the new one, never half of one.
 */
export async function saveState(path: string, state: RelayState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  const fh = await open(tmp, "w", 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(state, null, 1)}\n`, "utf8");
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

/**
 * Writes the relay's state file: serialises writes and coalesces bursts, since only the latest
 * state needs to reach the disk.
 */
export class StateFileWriter {
  private pending: RelayState | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly onError: (e: unknown) => void,
  ) {}

  write(state: RelayState): void {
    this.pending = state;
    if (!this.running) this.running = this.drainQueue();
  }

  /** Resolves once everything written so far is on disk. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drainQueue(): Promise<void> {
    try {
      while (this.pending) {
        const next = this.pending;
        this.pending = undefined;
        try {
          await saveState(this.path, next);
        } catch (e) {
          this.onError(e);
        }
      }
    } finally {
      this.running = undefined;
    }
  }
}
