import type { EventView } from "../api";
import { h } from "../dom";
import { ago, clock } from "../model/format";
import { layoutBar, spansFromMilestones } from "../model/timeline";
import { type OperatorUi, operatorButtons } from "./operator";
import { eventHref, phaseBadge } from "./phase";
import { timelineBar } from "./timelineBar";

/** What an event waits for, in the API's words, with each blocking VM called out. */
export function waitingFor(e: EventView): HTMLElement {
  return h(
    "div",
    { class: "waiting" },
    h("p", {}, h("strong", {}, "Waiting for: "), e.waitingFor ?? "—"),
    e.blockers.length > 0 &&
      h(
        "ul",
        { class: "blockers", "aria-label": "Blocking VMs" },
        e.blockers.map((b) =>
          h("li", { class: "blocker", "data-vm": b.vm }, h("strong", {}, b.vm), ` ${b.detail}`),
        ),
      ),
  );
}

function resourceList(e: EventView): HTMLElement {
  const blocking = new Set(e.blockers.map((b) => b.vm.toLowerCase()));
  const drained = new Set(e.drained.map((d) => d.toLowerCase()));
  return h(
    "ul",
    { class: "resources", "aria-label": "Affected VMs" },
    e.resources.map((vm) => {
      const state = blocking.has(vm.toLowerCase())
        ? "blocking"
        : drained.has(vm.toLowerCase())
          ? "drained"
          : "";
      return h(
        "li",
        { class: `vm-chip ${state}` },
        vm,
        state && h("span", { class: "chip-note" }, ` (${state})`),
      );
    }),
  );
}

function override(e: EventView, now: number): HTMLElement | false {
  if (e.hold)
    return h(
      "p",
      { class: "hold" },
      h("strong", {}, "Held by "),
      e.hold.by,
      ` ${ago(e.hold.at, now)}: “${e.hold.reason}”, until ${clock(e.hold.expiresAt)}`,
    );
  if (e.forceApprove)
    return h(
      "p",
      { class: "forced" },
      h("strong", {}, "Force-approved by "),
      e.forceApprove.by,
      ` ${ago(e.forceApprove.at, now)}: “${e.forceApprove.reason}”`,
    );
  return false;
}

/** One active event in the overview: phase, bar, NotBefore, what it waits for, the operator's buttons. */
export function eventCard(e: EventView, now: number, ops: OperatorUi): HTMLElement {
  const bar = layoutBar(
    spansFromMilestones({ ...e, approvedAt: e.approval.approvedAt }, now),
    e.notBefore,
    now,
  );
  return h(
    "article",
    {
      class: "event",
      "data-event-id": e.eventId,
      "data-phase": e.phase,
      "aria-labelledby": `ev-${e.eventId}`,
    },
    h(
      "header",
      {},
      h(
        "h3",
        { id: `ev-${e.eventId}` },
        h(
          "a",
          { href: eventHref(e.cluster, e.eventId) },
          `${e.eventType} ${e.eventId.slice(0, 8)}`,
        ),
      ),
      phaseBadge(e.phase, e.advisory),
      h(
        "span",
        { class: "meta" },
        `${e.cluster} · ${e.eventSource ?? "Platform"} · seen ${ago(e.firstSeenAt, now)}`,
        e.notBefore && ` · NotBefore ${clock(e.notBefore)} (${ago(e.notBefore, now)})`,
      ),
    ),
    resourceList(e),
    timelineBar(bar, true),
    waitingFor(e),
    override(e, now),
    operatorButtons(e, ops),
  );
}
