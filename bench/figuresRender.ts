import { type FigureRecord, loadText, notMeasured } from "./figures";
import type { FailedRound } from "./premise";

/**
 * latest.md's account of the run itself: which figures measured, which did not and why, and the
 * machine's idle share beside each (what else ran on the machine shows there, not as a slower
 * product).
 */

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

const STATUS: Record<FigureRecord["status"], string> = {
  measured: "measured",
  partial: "**partial**",
  failed: "**failed**",
};

/** A record's problems, without repeating "failed" after a failed status. */
export const problemsText = (f: FigureRecord) =>
  f.problems.map((p) => (f.status === "failed" ? p.replace(/^failed: /, "") : p)).join("; ");

export function renderFigures(figures: readonly FigureRecord[]): string[] {
  if (figures.length === 0) return [];
  const missing = notMeasured(figures);
  return [
    "## The run: figures, and the machine while each was measured",
    "",
    missing.length === 0
      ? "Every figure measured all it should."
      : `**${missing.length} of ${figures.length} figures did not measure all they should** (${missing.map((f) => f.title).join("; ")}): a failed figure's tables are absent below, or an earlier run's (said under them); a partial one lost the rounds listed under its tables.`,
    "",
    "| Figure | Result | Took | Machine while measured (idle share; mean 1-min load average) | Measured |",
    "| --- | --- | --- | --- | --- |",
    ...figures.map(
      (f) =>
        `| ${cell(f.title)} | ${STATUS[f.status]}${f.problems.length > 0 ? `: ${cell(problemsText(f))}` : ""} | ${f.seconds} s | ${loadText(f.machine)} | ${f.date.slice(0, 16).replace("T", " ")} |`,
    ),
    "",
  ];
}

/** One line under a figure's tables: the machine while it was measured. */
export function machineNote(figures: readonly FigureRecord[], ids: readonly string[]): string[] {
  const of = figures.filter((f) => ids.includes(f.id));
  if (of.length === 0) return [];
  if (of.every((f) => f.status === "failed"))
    return [
      `Not measured by the run of ${of[0]?.date.slice(0, 10)} (it failed: see the first table): these tables are an earlier run's.`,
      "",
    ];
  return [
    `Machine while measured: ${of.map((f) => `${of.length > 1 ? `${f.title}: ` : ""}${loadText(f.machine)} over ${f.seconds} s (${f.status})`).join("; ")}.`,
    "",
  ];
}

/** The rounds a partial figure lost, under its tables. */
export function failedRounds(failed: readonly FailedRound[]): string[] {
  if (failed.length === 0) return [];
  return [
    `Rounds not measured (${failed.length}):`,
    "",
    ...failed.map((f) => `- ${f.round}: ${f.problem}`),
    "",
  ];
}
