import type { EventDetail } from "@quiesce/cli";
import type { SimEvent } from "@quiesce/fabric-simulator";
import { type GateHold, gateHold } from "./gateHold";
import { type NoticeSaved, noticeSaved, type ToSim } from "./noticeSaved";
import { table } from "./table";

/** The end-of-demo story of one event, from the simulator (Azure's side) and the coordinator. */
export interface EventSummary {
  name: string;
  eventType: string;
  resources: string[];
  outcome: string;
  rule: string | null;
  approvedBy: string | null;
  /** Real seconds from the first relay report to the last affected VM's drain finishing. */
  drainedAfterSeconds: number | null;
  startCause: string | null;
  /** quiesce.event.notice_saved on the simulator's clock (noticeSaved.ts); null when it records none. */
  noticeSaved: NoticeSaved | null;
  recovered: string;
  /** Which safety gates held its approval, and for how long (real seconds). */
  gatesHeld: GateHold | null;
  /** Why its story was not told as written (premises.ts); empty when it was. */
  problems: string[];
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** The final phase, with the miss or the unplanned start it went through (e.g. "Completed (Unplanned)"). */
function outcomeOf(detail: EventDetail | null): string {
  if (!detail) return "never reported";
  const via = detail.timeline
    .map((t) => t.to)
    .find((to) => to === "Unplanned" || to === "ExpiredAtNotBefore");
  return via && via !== detail.phase ? `${detail.phase} (${via})` : detail.phase;
}

export function summarize(
  name: string,
  sim: SimEvent | undefined,
  detail: EventDetail | null,
  toSim: ToSim,
  problems: string[] = [],
): EventSummary {
  const affected = new Set((detail?.resources ?? sim?.resources ?? []).map((r) => r.toLowerCase()));
  const readiness = detail?.readiness ?? [];
  const drains = readiness.filter((r) => affected.has(r.vm.toLowerCase())).map((r) => r.drain);
  const drainedAt = drains.every((d) => d?.status === "succeeded" && d.finishedAt)
    ? Math.max(...drains.map((d) => Date.parse(d?.finishedAt ?? "")))
    : null;
  const firstSeen = detail?.firstSeenAt ? Date.parse(detail.firstSeenAt) : null;
  const drainedRows = readiness.filter((r) => r.drain);
  const recoveredRows = drainedRows.filter((r) => r.recover?.status === "succeeded");
  return {
    name,
    eventType: sim?.eventType ?? detail?.eventType ?? "?",
    resources: [...(sim?.resources ?? detail?.resources ?? [])],
    outcome: outcomeOf(detail),
    rule: detail?.approval.rule ?? null,
    approvedBy: sim?.approvedBy ?? null,
    drainedAfterSeconds:
      drainedAt !== null && firstSeen !== null && drains.length > 0
        ? seconds(drainedAt - firstSeen)
        : null,
    startCause: sim?.startCause ?? (sim?.removalCause === "cancelled" ? "cancelled" : null),
    noticeSaved: noticeSaved(detail, toSim),
    recovered: drainedRows.length === 0 ? "-" : `${recoveredRows.length}/${drainedRows.length}`,
    gatesHeld: detail ? gateHold(detail.timeline) : null,
    problems,
  };
}

export function renderSummary(rows: EventSummary[]): string {
  const header = [
    "event",
    "type",
    "VMs",
    "outcome",
    "rule",
    "approved by",
    "drained",
    "started",
    "notice saved",
    "recovered",
    "gates held",
  ];
  const body = rows.map((r) => [
    r.name,
    r.eventType,
    r.resources.join(","),
    // Marked, so an outcome that reads well cannot hide a story that did not happen as written.
    r.problems.length > 0 ? `${r.outcome} NOT AS TOLD` : r.outcome,
    r.rule ?? "-",
    r.approvedBy ?? "-",
    r.drainedAfterSeconds === null ? "-" : `${r.drainedAfterSeconds} s`,
    r.startCause ?? "-",
    r.noticeSaved === null
      ? "-"
      : `${Math.round(r.noticeSaved.share * 100)}% (${r.noticeSaved.secondsLeft} s left)`,
    r.recovered,
    r.gatesHeld ? `${r.gatesHeld.gates.join(",")} ${r.gatesHeld.seconds} s` : "-",
  ]);
  return table([header, ...body]);
}

/**
 * Under the table: every story not told as written and why, and the run's own problems (not
 * one event's); empty when every premise held.
 */
export function renderProblems(
  rows: readonly EventSummary[],
  runProblems: readonly string[],
): string[] {
  const told = rows.flatMap((r) => r.problems.map((p) => `  ${r.name}: ${p}`));
  const all = [...runProblems.map((p) => `  ${p}`), ...told];
  if (all.length === 0) return [];
  return [
    `Not as told (${all.length}): the summary above does not show the story as written.`,
    ...all,
  ];
}
