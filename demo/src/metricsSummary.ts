import type { Point } from "@quiesce/functions";

/** An event's notice saved on the simulator's clock, as the summary shows it (noticeSaved.ts). */
export interface SimNoticeSaved {
  eventType: string;
  outcome: string;
  share: number;
}

/**
 * The coordinator's metrics after a demo run, read from the in-process OTel SDK: the same
 * names Application Insights shows in Azure (docs/operations.md). quiesce.event.notice_saved is
 * shown as recorded and, beside it, the same computation on the simulator's clock (the summary's
 * notice saved): under a compressed clock the recorded one mixes two clocks (noticeSaved.ts).
 */
export function renderMetrics(
  points: readonly Point[],
  simNoticeSaved: readonly SimNoticeSaved[] = [],
  timeScale: number | null = null,
): string {
  const lines: string[] = [];
  const sum = (name: string) => points.filter((p) => p.name === name);
  for (const p of sum("quiesce.events"))
    lines.push(
      `  quiesce.events                 ${p.value}  ${p.attributes.eventType} ${p.attributes.outcome}${p.attributes.rule ? ` (${p.attributes.rule})` : ""}`,
    );
  const mean = (name: string, unit: string, by: string) => {
    for (const p of sum(name))
      if (p.value > 0 && p.sum !== undefined)
        lines.push(
          `  ${name.padEnd(30)} mean ${(p.sum / p.value).toFixed(unit === "" ? 2 : 1)}${unit} over ${p.value}  ${String(p.attributes[by] ?? "")}${p.attributes.outcome && by !== "outcome" ? ` ${p.attributes.outcome}` : ""}`,
        );
  };
  mean("quiesce.event.drain_duration", " s", "eventType");
  mean("quiesce.event.approval_delay", " s", "eventType");
  for (const p of sum("quiesce.event.notice_saved")) {
    if (!(p.value > 0) || p.sum === undefined) continue;
    const { eventType, outcome } = p.attributes;
    const line = `  ${"quiesce.event.notice_saved".padEnd(30)} mean ${(p.sum / p.value).toFixed(2)} over ${p.value}  ${String(eventType)} ${String(outcome)}`;
    const same = simNoticeSaved.filter((n) => n.eventType === eventType && n.outcome === outcome);
    const onOneClock =
      same.length === 0
        ? "none the summary could place on one clock"
        : `${(same.reduce((t, n) => t + n.share, 0) / same.length).toFixed(2)} over ${same.length}, the summary's notice saved`;
    lines.push(
      timeScale !== null && timeScale !== 1
        ? `${line}  (the coordinator's clock against NotBefore on the simulator's ${timeScale}x clock; on one clock: ${onOneClock})`
        : line,
    );
  }
  for (const p of sum("quiesce.hook.failures"))
    lines.push(
      `  quiesce.hook.failures          ${p.value}  ${p.attributes.hook} ${p.attributes.reason}`,
    );
  const reports = sum("quiesce.reports").reduce((t, p) => t + p.value, 0);
  lines.push(`  quiesce.reports                ${reports}`);
  const table = sum("quiesce.table.duration");
  const calls = table.reduce((t, p) => t + p.value, 0);
  const ms = table.reduce((t, p) => t + (p.sum ?? 0), 0);
  if (calls > 0)
    lines.push(
      `  quiesce.table.duration         ${calls} calls, mean ${(ms / calls).toFixed(1)} ms`,
    );
  for (const p of sum("quiesce.relays.live"))
    lines.push(`  quiesce.relays.live            ${p.value}  ${p.attributes.cluster}`);
  for (const p of sum("quiesce.notifications"))
    lines.push(
      `  quiesce.notifications          ${p.value}  ${p.attributes.sink} ${p.attributes.kind} ${p.attributes.outcome}`,
    );
  return lines.join("\n");
}
