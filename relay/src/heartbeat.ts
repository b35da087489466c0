import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { VmIdentity } from "@quiesce/protocol/imds";
import { ImdsClient, type ImdsClientOptions, type ScheduledEventsRead } from "./imds/client";
import { errorText } from "./log";
import { settingName } from "./options";

/**
 * Proof that the relay's IMDS loop goes round, for a supervisor that can only run a command (a
 * Kubernetes exec liveness probe: the relay has no HTTP server). The loop touches a file beside
 * the state file after every IMDS read; `quiesce-relay --probe` fails once the file is older than
 * the longest the loop can go between two reads. A slow drain or a coordinator outage does not
 * stop the loop (hooks and reports run beside it, relay.ts), so neither ever fails the probe; an
 * IMDS outage does not either (each read ends, failed, within its retry budget).
 */

export const heartbeatFileFor = (stateFile: string): string => `${stateFile}.heartbeat`;

/** The file is written at most this often: an idle VM polls every second. */
export const HEARTBEAT_EVERY_MS = 10_000;

/**
 * Longer than the loop can go between two reads' ends with the ImdsClient's defaults: a read
 * retries for up to 70 s, and an attempt of the very first Scheduled Events read may take 120 s
 * (IMDS enables the feature then), so 195 s at worst; an identity read may then wait 30 s more.
 */
const LONGEST_READ_GAP_MS = 5 * 60_000;

/** How old the heartbeat may be while the loop still runs, at this poll interval. */
export const heartbeatStaleAfterMs = (pollIntervalMs: number): number =>
  LONGEST_READ_GAP_MS + pollIntervalMs + HEARTBEAT_EVERY_MS;

/** Writes the heartbeat file (its mtime is what counts; it holds the time for a reader). */
export class Heartbeat {
  private lastWrite = Number.NEGATIVE_INFINITY;
  private writing: Promise<void> | undefined;
  private stopped = false;
  private lastError = "";

  constructor(
    readonly file: string,
    private readonly onError: (error: string) => void,
    private readonly everyMs = HEARTBEAT_EVERY_MS,
  ) {}

  beat(): void {
    const now = performance.now();
    if (this.stopped || this.writing || now - this.lastWrite < this.everyMs) return;
    this.lastWrite = now;
    this.writing = this.write()
      .then(
        () => {
          this.lastError = "";
        },
        (e) => {
          // Once per distinct error, not every 10 s: the probe says the rest.
          const text = errorText(e);
          if (text !== this.lastError) this.onError(text);
          this.lastError = text;
        },
      )
      .finally(() => {
        this.writing = undefined;
      });
  }

  private async write(): Promise<void> {
    const text = `${new Date().toISOString()}\n`;
    try {
      await writeFile(this.file, text);
    } catch (e) {
      // The first beat may come before the state file's first write has made its directory.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      await mkdir(dirname(this.file), { recursive: true });
      await writeFile(this.file, text);
    }
  }

  /** No more writes; waits for the one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.writing;
  }
}

/** The IMDS client whose watch-loop reads (identity, Scheduled Events) each beat when they end. */
export class HeartbeatImdsClient extends ImdsClient {
  constructor(
    options: ImdsClientOptions,
    private readonly heartbeat: Heartbeat,
  ) {
    super(options);
  }

  override async readScheduledEvents(signal?: AbortSignal): Promise<ScheduledEventsRead> {
    try {
      return await super.readScheduledEvents(signal);
    } finally {
      this.heartbeat.beat();
    }
  }

  override async readIdentity(signal?: AbortSignal): Promise<VmIdentity> {
    try {
      return await super.readIdentity(signal);
    } finally {
      this.heartbeat.beat();
    }
  }
}

export type ProbeResult = { alive: boolean; text: string };

/** `--probe`: is the heartbeat younger than `staleAfterMs`? The text says why, for the prober. */
export async function probeHeartbeat(
  file: string,
  staleAfterMs: number,
  now: number = Date.now(),
): Promise<ProbeResult> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(file)).mtimeMs;
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    return {
      alive: false,
      text: missing
        ? `no heartbeat ${file}: the relay has not started, or runs with another ${settingName("STATE_FILE")}`
        : `heartbeat ${file} unreadable: ${errorText(e)}`,
    };
  }
  // A heartbeat from the future (the clock stepped back) is taken as fresh: a clock step must not
  // get a running relay killed.
  const ageS = Math.max(0, Math.round((now - mtimeMs) / 1000));
  const limitS = Math.round(staleAfterMs / 1000);
  return now - mtimeMs <= staleAfterMs
    ? { alive: true, text: `alive: heartbeat ${ageS} s old` }
    : {
        alive: false,
        text: `not alive: heartbeat ${file} ${ageS} s old (limit ${limitS} s): the IMDS loop stopped`,
      };
}
