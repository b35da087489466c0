import { waitFor } from "@quiesce/testkit/wait";

/**
 * What a figure stands on: a condition of the system ("every relay of the group reported its
 * drain"), waited for with a deadline, never a fixed delay. When it cannot be met, the round or
 * figure says so (PremiseNotMet) instead of measuring something else, and the run goes on
 * (bench/figures.ts).
 */

export class PremiseNotMet extends Error {
  override name = "PremiseNotMet";
  constructor(
    /** The condition, in words. */
    readonly premise: string,
    /** Why it was not met: what was seen instead, or the deadline passed. */
    readonly why: string,
  ) {
    super(`premise not met: ${premise} (${why})`);
  }
}

/**
 * Polls `probe` until it returns a value (as waitFor) or `timeoutMs` passes; then PremiseNotMet,
 * with the probe's last error as the why (a probe that throws says what it saw instead).
 */
export async function premise<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs: number,
  everyMs = 50,
): Promise<T> {
  try {
    return await waitFor(what, probe, timeoutMs, everyMs);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const seen = /\(last error: (?:Error: )?(.*)\)$/s.exec(message)?.[1];
    throw new PremiseNotMet(
      what,
      seen ? `after ${timeoutMs} ms: ${seen}` : `not within ${timeoutMs} ms`,
    );
  }
}

/** A premise checked once, now: `false` is PremiseNotMet with `why`. */
export function check(what: string, holds: boolean, why: string): void {
  if (!holds) throw new PremiseNotMet(what, why);
}

/** How an error reads in the results: a premise not met as such, anything else as a failure. */
export function describeFailure(e: unknown): { premise: boolean; message: string } {
  if (e instanceof PremiseNotMet) return { premise: true, message: e.message };
  const message = e instanceof Error ? e.message : String(e);
  return { premise: false, message: `failed: ${message}` };
}

/** A round of a figure that was not measured, and why ("premise not met: …" or "failed: …"). */
export interface FailedRound {
  round: string;
  problem: string;
}

/**
 * Rounds run together (already started): the samples of those that measured, and the others
 * with why. One round whose premise was not met costs that round, not the figure.
 */
export async function settleRounds<T>(
  rounds: readonly { round: string; run: Promise<T> }[],
): Promise<{ samples: T[]; failed: FailedRound[] }> {
  const settled = await Promise.allSettled(rounds.map((r) => r.run));
  const samples: T[] = [];
  const failed: FailedRound[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") samples.push(s.value);
    else
      failed.push({
        round: rounds[i]?.round ?? `#${i}`,
        problem: describeFailure(s.reason).message,
      });
  });
  return { samples, failed };
}

/** `settleRounds` for a figure's rounds that run one after the other. */
export async function roundsInTurn<T>(
  names: readonly string[],
  run: (name: string, i: number) => Promise<T>,
): Promise<{ samples: T[]; failed: FailedRound[] }> {
  const samples: T[] = [];
  const failed: FailedRound[] = [];
  for (const [i, round] of names.entries()) {
    try {
      samples.push(await run(round, i));
    } catch (e) {
      failed.push({ round, problem: describeFailure(e).message });
    }
  }
  return { samples, failed };
}

/** A figure with no sample left has nothing to show: it fails, with its rounds' reasons. */
export function someMeasured<T>(what: string, r: { samples: T[]; failed: FailedRound[] }): T[] {
  if (r.samples.length === 0)
    throw new Error(
      `${what}: no round measured (${r.failed.map((f) => `${f.round}: ${f.problem}`).join("; ")})`,
    );
  return r.samples;
}

/** A wait of the testkit's (waitForPhase, …) as a premise: its timeout is PremiseNotMet. */
export function premiseOf<T>(what: string, wait: Promise<T>): Promise<T> {
  return wait.catch((e: unknown) => {
    throw new PremiseNotMet(what, e instanceof Error ? e.message : String(e));
  });
}
