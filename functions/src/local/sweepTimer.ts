import { nextOccurrence, type TimerSchedule } from "../timerSchedule";

/**
 * The local host's stand-in for the Functions timer trigger: runs `sweep` when the schedule says
 * (an NCRONTAB schedule at its occurrences, a TimeSpan or `intervalMs` every so often), never two
 * at once (a slow sweep is not stacked on itself: the host's timer is a singleton too).
 */
export interface SweepTimer {
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>;
}

export function startSweepTimer(opts: {
  schedule: TimerSchedule;
  sweep: () => Promise<unknown>;
  /** Told once when the schedule never fires (e.g. "0 0 0 30 2 *"). */
  never: () => void;
}): SweepTimer {
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  let stopped = false;
  const run = () => {
    if (sweeping) return;
    sweeping = opts.sweep().finally(() => {
      sweeping = undefined;
    });
  };
  const { schedule } = opts;
  if (schedule.kind === "timeSpan") {
    timer = setInterval(run, schedule.intervalMs);
    timer.unref();
  } else {
    const arm = () => {
      if (stopped) return;
      const next = nextOccurrence(schedule, Date.now());
      if (next === undefined) return opts.never();
      // setTimeout's longest wait is 2^31-1 ms (24.8 days); a later occurrence is re-armed for.
      timer = setTimeout(
        () => {
          if (Date.now() >= next) run();
          arm();
        },
        Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1),
      );
      timer.unref();
    };
    arm();
  }
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await sweeping;
    },
  };
}
