/**
 * How long this process was kept from running: a timer asks to run every `everyMs` and records by
 * how much it ran late (beyond a tolerance for ordinary timer jitter). On a loaded machine (two
 * cores, a whole suite, other work) every step of a real-time chain (a relay's report, the
 * coordinator's answer, a StartRequests) is late by about as much, so a test that bounds such a
 * chain in wall time adds the delay measured over that very interval to its bound, and says so.
 * An idle machine measures ~0 and the bound is the nominal one.
 */

export interface LagMonitor {
  /** ms the timer ran late in total within [fromMs, toMs] (Date.now() clock). */
  between(fromMs: number, toMs: number): number;
  stop(): void;
}

const TOLERANCE_MS = 2;

export function startLagMonitor(everyMs = 20, keepMs = 15 * 60_000): LagMonitor {
  // Each stall as [start, end] in Date.now() ms: the timer was due at start, ran at end.
  const stalls: Array<[number, number]> = [];
  let expected = performance.now() + everyMs;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    const late = now - expected - TOLERANCE_MS;
    if (late > 0) {
      const end = Date.now();
      stalls.push([end - late, end]);
      while (stalls.length > 0 && (stalls[0] as [number, number])[1] < end - keepMs) stalls.shift();
    }
    expected = now + everyMs;
    timer = setTimeout(tick, everyMs).unref();
  };
  timer = setTimeout(tick, everyMs).unref();
  return {
    between(fromMs, toMs) {
      let ms = 0;
      for (const [start, end] of stalls)
        ms += Math.max(0, Math.min(end, toMs) - Math.max(start, fromMs));
      return Math.round(ms);
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

/** A wall-time measurement against its bound plus the scheduling delay measured meanwhile. */
export interface Bounded {
  ms: number;
  boundMs: number;
  lagMs: number;
  /** boundMs + lagMs. */
  allowedMs: number;
  /** "1234 ms (bound 3000 ms + 56 ms scheduling delay measured over the interval)". */
  text: string;
}

export function bounded(ms: number, boundMs: number, lagMs: number, lagDetail = ""): Bounded {
  const allowedMs = boundMs + lagMs;
  const detail = lagDetail ? ` (${lagDetail})` : "";
  return {
    ms,
    boundMs,
    lagMs,
    allowedMs,
    text: `${Math.round(ms)} ms (bound ${boundMs} ms + ${lagMs} ms scheduling delay measured over the interval${detail})`,
  };
}
