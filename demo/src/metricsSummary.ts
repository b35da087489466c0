import type { Point } from "@quiesce/functions";

/**
 * The coordinator's metrics after a demo run, read from the in-process OTel SDK: the same
 * names Application Insights shows in Azure (docs/operations.md).
 */
export function renderMetrics(points: readonly Point[]): string {
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
  mean("quiesce.event.notice_saved", "", "eventType");
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
