import type { Clock } from "@quiesce/protocol";
import type { ScheduledEventsDocument, VmIdentity } from "@quiesce/protocol/imds";
import type { RelayState } from "../decisions/state";
import type { Logger } from "../log";
import type { RelayConfig } from "../options";
import type { StateFileWriter } from "../stateFile";

/**
 * What the relay's loops share: the state (written through on every change), this VM's identity
 * and latest document, the stop signal, and the "report soon" signal. One owner of each piece of
 * mutable state, so each loop's file reads as what it does, not how it coordinates.
 */
export class RelayContext {
  state: RelayState;
  vm: VmIdentity | undefined;
  latest: ScheduledEventsDocument | null = null;
  readonly stopping = new AbortController();
  readonly reports = new ReportSignal(this.stopping.signal);
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    readonly config: RelayConfig,
    readonly log: Logger,
    private readonly clock: Clock,
    private readonly writer: StateFileWriter,
    initial: RelayState,
  ) {
    this.state = initial;
    writer.write(initial);
  }

  now(): number {
    return this.clock.now();
  }

  iso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Every change is written to disk and reported. */
  setState(next: RelayState): void {
    if (next === this.state) return;
    this.state = next;
    this.writer.write(next);
    this.reports.soon();
  }

  /** Work that stop() waits for (hooks, approvals). */
  track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    p.finally(() => this.inFlight.delete(p)).catch(() => {});
    return p;
  }

  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Writes the state and waits until it is on disk. */
  async flush(state: RelayState): Promise<void> {
    this.state = state;
    this.writer.write(state);
    await this.writer.flush();
  }
}

/** Anything that changes what the relay would report wakes the reporter. */
export class ReportSignal {
  /** Something changed since the last report (or the last one failed). */
  dirty = true;
  private wake: (() => void) | undefined;

  constructor(private readonly stopping: AbortSignal) {}

  soon(): void {
    this.dirty = true;
    this.wake?.();
  }

  /** Sleeps `ms`, or less when woken by soon() or by stop. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      this.wake = done;
      const self = this;
      function done() {
        clearTimeout(t);
        self.wake = undefined;
        resolve();
      }
      if (this.stopping.aborted) done();
    });
  }

  /** Ends a sleep at once (stop). */
  interrupt(): void {
    this.wake?.();
  }
}
