/** Plain words for times and phases, shared by every view. */

export function ago(from: string | null | undefined, now: number): string {
  if (!from) return "never";
  const s = Math.round((now - Date.parse(from)) / 1000);
  return s >= 0 ? `${duration(s)} ago` : `in ${duration(-s)}`;
}

export function duration(seconds: number): string {
  const s = Math.abs(Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60 ? `${s % 60} s` : ""}`.trim();
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function clock(t: string | null | undefined): string {
  if (!t) return "—";
  return new Date(t)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

/** How an ended event turned out, for the history list. */
export function outcome(phase: string): "good" | "miss" | "neutral" {
  if (phase === "Completed") return "good";
  if (phase === "ExpiredAtNotBefore" || phase === "Unplanned") return "miss";
  return "neutral";
}

export const ENDED_PHASES = new Set(["Completed", "Cancelled", "Unplanned", "ExpiredAtNotBefore"]);
