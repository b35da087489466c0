import type { ClusterPage, EventView, MemberView } from "../api";
import { h } from "../dom";
import { approvalNote } from "../model/approval";
import { ago, clock, outcome } from "../model/format";
import { GROUP_KIND_LABEL, groupMembers } from "../model/groups";
import { eventCard } from "./eventCard";
import type { OperatorUi } from "./operator";
import { eventHref, phaseBadge } from "./phase";

export interface OverviewData {
  now: number;
  clusters: ClusterPage[];
  activeEvents: EventView[];
}

/** Per VM: the active event that waits on it, else the one it is drained for. */
function vmStates(events: readonly EventView[]) {
  const blocking = new Map<string, string>();
  const drained = new Map<string, string>();
  for (const e of events) {
    for (const b of e.blockers) blocking.set(b.vm.toLowerCase(), `${b.detail} (${e.eventType})`);
    for (const d of e.drained) drained.set(d.toLowerCase(), e.eventType);
  }
  return { blocking, drained };
}

function memberTile(m: MemberView, now: number, s: ReturnType<typeof vmStates>): HTMLElement {
  const block = s.blocking.get(m.vm.toLowerCase());
  const drained = s.drained.get(m.vm.toLowerCase());
  const state = block ? "blocking" : drained ? "drained" : "";
  return h(
    "li",
    { class: `vm ${m.live ? "live" : "lost"} ${state}`, "data-vm": m.vm },
    h("span", { class: "vm-name" }, m.vm),
    h(
      "span",
      { class: "vm-live" },
      m.live ? "relay live" : `relay silent, ${ago(m.lastSeenAt, now)}`,
    ),
    block && h("span", { class: "vm-note" }, `blocks: ${block}`),
    !block && drained && h("span", { class: "vm-note" }, `drained for ${drained}`),
    attestationNote(m),
  );
}

/** What attestation says of the VM (docs/auth.md): bound, or why not; nothing when never asked. */
function attestationNote(m: MemberView): HTMLElement | undefined {
  const a = m.attestation;
  if (!a) return undefined;
  const problem = a.problem ? `; ${a.problem.code}: ${a.problem.detail}` : "";
  const text = a.bound
    ? `attested (vmId ${a.binding?.vmId ?? "?"})${problem}`
    : `not attested: ${a.unbound?.why ?? "no binding"}${problem}`;
  return h("span", { class: `vm-note attestation ${a.bound && !a.problem ? "" : "warn"}` }, text);
}

/** A placement group is named by a GUID; the scale set it belongs to is what people recognise. */
function scaleSetOf(kind: string, members: readonly MemberView[]): string | undefined {
  if (kind !== "placementGroup") return undefined;
  const names = new Set(members.map((m) => m.vmScaleSetName).filter((n) => n !== undefined));
  return names.size === 1 ? [...names][0] : undefined;
}

/** Whether Azure offers approval through ARM where the group runs (model/approval.ts). */
function approvalSpan(c: ClusterPage, kind: string, name: string): HTMLElement | false {
  const note = approvalNote(c.groups, kind, name);
  return (
    note !== null &&
    h("span", { class: `meta approval ${note.warn ? "warn" : ""}` }, ` · ${note.text}`)
  );
}

function clusterSection(c: ClusterPage, data: OverviewData): HTMLElement {
  const s = vmStates(data.activeEvents.filter((e) => e.cluster === c.cluster));
  const total = c.memberCount;
  return h(
    "section",
    { class: "cluster", "data-cluster": c.cluster, "aria-labelledby": `cl-${c.cluster}` },
    h(
      "h3",
      { id: `cl-${c.cluster}` },
      c.cluster,
      h(
        "span",
        { class: "meta" },
        ` ${c.liveMembers} of ${total} relays live · ${c.activeEvents.length} active event(s)`,
      ),
    ),
    // The page reads one page of members (500); the group counts above cover them all.
    c.continuation !== null &&
      h("p", { class: "meta" }, `Showing the first ${c.members.length} of ${total} VMs.`),
    groupMembers(c.members, c.groups).map((g) =>
      h(
        "div",
        { class: "group", "data-group": g.name },
        h(
          "h4",
          {},
          `${GROUP_KIND_LABEL[g.kind] ?? g.kind}${g.name ? ` ${g.name}` : ""}`,
          scaleSetOf(g.kind, g.members) && ` (scale set ${scaleSetOf(g.kind, g.members)})`,
          h("span", { class: "meta" }, ` ${g.liveMembers}/${g.memberCount} live`),
          approvalSpan(c, g.kind, g.name),
        ),
        h(
          "ul",
          { class: "vms" },
          g.members.map((m) => memberTile(m, data.now, s)),
        ),
      ),
    ),
  );
}

function historyTable(events: EventView[], now: number): HTMLElement {
  if (events.length === 0) return h("p", { class: "empty" }, "No event has ended yet.");
  return h(
    "table",
    { class: "history" },
    h("caption", {}, "Ended events, newest first"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Event", "Cluster", "Outcome", "Rule", "Approved by", "Ended"].map((t) =>
          h("th", { scope: "col" }, t),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      events.map((e) =>
        h(
          "tr",
          { class: `o-${outcome(e.phase)}`, "data-event-id": e.eventId },
          h(
            "td",
            {},
            h(
              "a",
              { href: eventHref(e.cluster, e.eventId) },
              `${e.eventType} ${e.eventId.slice(0, 8)}`,
            ),
          ),
          h("td", {}, e.cluster),
          h("td", {}, phaseBadge(e.phase, e.advisory)),
          h("td", {}, e.approval.rule ?? "—"),
          h("td", {}, e.approval.approvedBy ?? "—"),
          h("td", { title: clock(e.endedAt) }, ago(e.endedAt, now)),
        ),
      ),
    ),
  );
}

/** Everything at once: clusters by group with relay liveness, active events, recent history. */
export function overview(data: OverviewData, ops: OperatorUi): HTMLElement {
  const ended = data.clusters
    .flatMap((c) => c.recentEndedEvents)
    .sort((a, b) => Date.parse(b.endedAt ?? "") - Date.parse(a.endedAt ?? ""))
    .slice(0, 25);
  return h(
    "div",
    { class: "overview" },
    h(
      "section",
      { "aria-labelledby": "h-active" },
      h("h2", { id: "h-active" }, `Active events (${data.activeEvents.length})`),
      data.activeEvents.length === 0
        ? h("p", { class: "empty" }, "No maintenance in progress.")
        : data.activeEvents.map((e) => eventCard(e, data.now, ops)),
    ),
    h(
      "section",
      { "aria-labelledby": "h-clusters" },
      h("h2", { id: "h-clusters" }, "Clusters"),
      data.clusters.length === 0
        ? h("p", { class: "empty" }, "No relay has reported yet.")
        : data.clusters.map((c) => clusterSection(c, data)),
    ),
    h(
      "section",
      { "aria-labelledby": "h-history" },
      h("h2", { id: "h-history" }, "Recent history"),
      historyTable(ended, data.now),
    ),
  );
}
