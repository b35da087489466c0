import type { EventDetail } from "../api";
import { h } from "../dom";
import { ago, clock } from "../model/format";
import { layoutBar, spansFromTransitions } from "../model/timeline";
import { waitingFor } from "./eventCard";
import { type OperatorUi, operatorButtons } from "./operator";
import { phaseBadge } from "./phase";
import { legend, timelineBar } from "./timelineBar";

const hook = (run: { status: string } | null | undefined) => run?.status ?? "—";

/** One event in full: its bar from the stored transitions, per-VM readiness, the whole history. */
export function eventPage(e: EventDetail, now: number, ops: OperatorUi): HTMLElement {
  const transitions = e.timeline
    .filter((t) => t.kind === "transition" && t.to)
    .map((t) => ({ at: t.at, to: t.to as string }));
  const spans = spansFromTransitions(transitions, e.firstSeenAt, e.endedAt, now);
  const bar = layoutBar(spans, e.notBefore, now);
  const blocking = new Set(e.blockers.map((b) => b.vm.toLowerCase()));
  const facts: [string, string | HTMLElement][] = [
    ["Phase", phaseBadge(e.phase, e.advisory)],
    ["Cluster", e.cluster],
    ["Type / source", `${e.eventType} / ${e.eventSource ?? "Platform"}`],
    ["Azure status", e.status ?? "—"],
    [
      "Duration",
      e.durationInSeconds === null || e.durationInSeconds === undefined || e.durationInSeconds < 0
        ? "unknown"
        : `${e.durationInSeconds} s`,
    ],
    ["First seen", `${clock(e.firstSeenAt)}${e.firstSeenBy ? ` by ${e.firstSeenBy}` : ""}`],
    ["NotBefore", e.notBefore ? `${clock(e.notBefore)} (${ago(e.notBefore, now)})` : "—"],
    ["Approval rule", e.approval.rule ?? "—"],
    [
      "Approved",
      e.approval.approvedAt
        ? `${clock(e.approval.approvedAt)} by ${e.approval.approvedBy}${e.approval.via === "controlPlane" ? " (through Azure Resource Manager)" : ""}`
        : "—",
    ],
    ["Started", clock(e.startedAt)],
    ["Ended", clock(e.endedAt)],
  ];
  if (e.hold)
    facts.push(["Hold", `by ${e.hold.by}: “${e.hold.reason}”, until ${clock(e.hold.expiresAt)}`]);
  if (e.forceApprove)
    facts.push(["Force-approve", `by ${e.forceApprove.by}: “${e.forceApprove.reason}”`]);
  for (const g of e.gates) facts.push([`Gate ${g.name}`, `failing: ${g.detail}`]);
  if (e.maintenanceWindow) facts.push(["Maintenance window", e.maintenanceWindow]);
  for (const o of e.gateOverrides)
    facts.push([`Forced past ${o.gate}`, `by ${o.by}: “${o.reason}”, until ${clock(o.expiresAt)}`]);
  const cp = e.approval.controlPlane;
  if (cp?.lastError)
    facts.push([
      "Control plane",
      `${cp.attempts} attempt(s)${cp.gaveUp ? ", gave up" : ""}: ${cp.lastError.outcome ? `${cp.lastError.outcome}, ` : ""}ARM ${cp.lastError.status} ${cp.lastError.code}`,
    ]);
  const lb = e.readiness.some((r) => r.loadBalancer);
  return h(
    "article",
    { class: "event-page", "data-event-id": e.eventId, "data-phase": e.phase },
    h("p", {}, h("a", { href: "#/" }, "← All clusters")),
    h("h2", {}, `${e.eventType} ${e.eventId}`),
    e.description && h("p", { class: "meta" }, e.description),
    h(
      "dl",
      { class: "facts" },
      facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
    ),
    waitingFor(e),
    operatorButtons(e, ops),
    h("h3", {}, "Timeline"),
    timelineBar(bar),
    legend(spans.map((s) => s.phase)),
    h("h3", {}, "Affected VMs"),
    h(
      "table",
      { class: "readiness" },
      h("caption", {}, "Drain and recover hooks per VM"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          [
            "VM",
            "Affected",
            "Sees the event",
            "Drain",
            "Recover",
            ...(lb ? ["Load balancer"] : []),
          ].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        {},
        (e.readiness.length > 0
          ? e.readiness
          : e.resources.map((vm) => ({
              vm,
              affected: true,
              inDocument: undefined,
              drain: null,
              recover: null,
              loadBalancer: null,
            }))
        ).map((r) =>
          h(
            "tr",
            { class: blocking.has(r.vm.toLowerCase()) ? "blocking" : "" },
            h(
              "th",
              { scope: "row" },
              r.vm,
              blocking.has(r.vm.toLowerCase()) && h("span", { class: "chip-note" }, " (blocking)"),
            ),
            h("td", {}, r.affected === undefined ? "—" : r.affected ? "yes" : "no"),
            h("td", {}, r.inDocument === undefined ? "—" : r.inDocument ? "yes" : "no"),
            h("td", {}, hook(r.drain)),
            h("td", {}, hook(r.recover)),
            lb &&
              h(
                "td",
                {},
                r.loadBalancer
                  ? `${r.loadBalancer.state}${r.loadBalancer.error ? ` (${r.loadBalancer.error})` : ""}`
                  : "—",
              ),
          ),
        ),
      ),
    ),
    h("h3", {}, "History"),
    h(
      "ol",
      { class: "history-list" },
      e.timeline.map((t) =>
        h(
          "li",
          {},
          h("time", { datetime: t.at }, clock(t.at)),
          " ",
          t.kind === "transition"
            ? h("strong", {}, `${t.from ?? "—"} → ${t.to ?? "—"}`)
            : h("strong", {}, `operator ${t.action ?? ""}`),
          t.by && ` by ${t.by}`,
          t.vm && ` (${t.vm})`,
          t.reason && `: ${t.reason}`,
        ),
      ),
    ),
  );
}
