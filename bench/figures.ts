import { cpus, loadavg } from "node:os";
import { z } from "zod";
import { describeFailure } from "./premise";
import { round } from "./stats";

/**
 * How `npm run bench` runs its figures: one after the other, each timed with the machine's idle
 * share over it, and none allowed to throw the run away. A figure that throws (a premise not met,
 * or the system failing) is recorded as failed with why, and the next one runs; a figure that
 * measured but lost some rounds (each says why) is recorded as partial. main.ts writes what was
 * measured with these records, and exits non-zero when any is not "measured".
 */

/**
 * The machine while a figure ran: its cores, the share of their time idle (os.cpus()) and the
 * mean 1-minute load average (os.loadavg(), sampled every 5 s): idle 0 says the cores were busy,
 * the load average how many were queued for them (16 on 2 cores: another workload beside it).
 */
export const MachineLoad = z.strictObject({
  cores: z.number(),
  idleShare: z.number(),
  loadAverage: z.number().optional(),
});
export type MachineLoad = z.infer<typeof MachineLoad>;

export const FigureRecord = z.strictObject({
  /** The `--only` name (relay-idle, status-scale for the ones bench/run.mjs runs itself). */
  id: z.string(),
  title: z.string(),
  status: z.enum(["measured", "partial", "failed"]),
  seconds: z.number(),
  machine: MachineLoad,
  /** Why it failed, or why some of its rounds did: "premise not met: …" or "failed: …". */
  problems: z.array(z.string()),
  /** When it was measured (a `--only` run merges into an earlier run's figures). */
  date: z.string(),
});
export type FigureRecord = z.infer<typeof FigureRecord>;

export interface Figure<S> {
  id: string;
  title: string;
  measure: () => Promise<Partial<S>>;
  /** Rounds the figure lost while still measuring the others ("premise not met: …"). */
  problems?: (measured: Partial<S>) => string[];
}

/** The machine's clock and idle time; tests give their own. */
export interface MachineProbe {
  now(): number;
  idle(): { cores: number; idleMs: number };
  /** The 1-minute load average (0 where the platform has none). */
  loadAverage(): number;
}

export const machineProbe: MachineProbe = {
  now: () => performance.now(),
  idle: () => {
    const all = cpus();
    return { cores: all.length, idleMs: all.reduce((t, c) => t + c.times.idle, 0) };
  },
  loadAverage: () => loadavg()[0] ?? 0,
};

const LOAD_SAMPLE_MS = 5_000;

/** Idle share of the machine's cores between two probes: what else ran beside the figure shows here. */
export function idleShare(
  before: { cores: number; idleMs: number },
  after: { cores: number; idleMs: number },
  elapsedMs: number,
): MachineLoad {
  const share = elapsedMs > 0 ? (after.idleMs - before.idleMs) / (after.cores * elapsedMs) : 1;
  return { cores: after.cores, idleShare: round(Math.min(1, Math.max(0, share)), 3) };
}

/**
 * Runs each figure in turn; whatever one throws is its record's problem, never the run's end.
 * Returns the sections measured (merged) and one record per figure, in order.
 */
export async function runFigures<S extends object>(
  figures: readonly Figure<S>[],
  log: (s: string) => void,
  probe: MachineProbe = machineProbe,
): Promise<{ measured: Partial<S>; records: FigureRecord[] }> {
  let measured: Partial<S> = {};
  const records: FigureRecord[] = [];
  for (const f of figures) {
    const t0 = probe.now();
    const idle0 = probe.idle();
    const loads = [probe.loadAverage()];
    const sampler = setInterval(() => loads.push(probe.loadAverage()), LOAD_SAMPLE_MS);
    sampler.unref();
    let status: FigureRecord["status"] = "measured";
    let problems: string[] = [];
    try {
      const sections = await f.measure();
      measured = { ...measured, ...sections };
      problems = f.problems?.(sections) ?? [];
      if (problems.length > 0) status = "partial";
    } catch (e) {
      status = "failed";
      problems = [describeFailure(e).message];
    } finally {
      clearInterval(sampler);
    }
    loads.push(probe.loadAverage());
    const elapsed = probe.now() - t0;
    const machine = {
      ...idleShare(idle0, probe.idle(), elapsed),
      loadAverage: round(loads.reduce((a, b) => a + b, 0) / loads.length, 2),
    };
    const record: FigureRecord = {
      id: f.id,
      title: f.title,
      status,
      seconds: round(elapsed / 1000, 1),
      machine,
      problems,
      date: new Date().toISOString(),
    };
    records.push(record);
    log(`${f.title}: ${status} in ${record.seconds} s, machine ${loadText(machine)}`);
    for (const p of problems) log(`${f.title}: ${p}`);
  }
  return { measured, records };
}

/** An earlier run's records with this run's in place of the same figures (a `--only` run). */
export function mergeRecords(
  earlier: readonly FigureRecord[],
  fresh: readonly FigureRecord[],
): FigureRecord[] {
  const ids = new Set(fresh.map((r) => r.id));
  return [...earlier.filter((r) => !ids.has(r.id)), ...fresh];
}

export const notMeasured = (records: readonly FigureRecord[]) =>
  records.filter((r) => r.status !== "measured");

export const loadText = (m: MachineLoad) =>
  `${Math.round(m.idleShare * 100)} % of ${m.cores} cores idle${m.loadAverage === undefined ? "" : `, load average ${m.loadAverage}`}`;

/**
 * main.ts's exit code: 0 when every figure measured all it should, PARTIAL_EXIT when results
 * were written but some figure failed or lost rounds (bench/run.mjs goes on and exits 1), 1 when
 * the run itself failed and wrote nothing.
 */
export const PARTIAL_EXIT = 3;
