import type {
  ClusterPage,
  ClusterSummary,
  EventDetail,
  EventView,
  OperatorAnswer,
  StatusPage,
} from "@quiesce/protocol/status";

/** Plain-text views of the status API, shared by `quiesce status` and the `npm start` demo. */

export const shortId = (id: string): string => (id.length > 13 ? `${id.slice(0, 8)}…` : id);

/**
 * After the event type of an advisory event (a Spot rebalance recommendation), which is never
 * approved: an operator reading a line sees at once that there is nothing to hold or force.
 */
const ADVISORY_MARK = " (advisory)";

/** One line: what the event is, where it stands, and what it waits for. */
export function eventLine(e: EventView, label?: string): string {
  const name = label ? `${label} (${shortId(e.eventId)})` : e.eventId;
  const who = e.resources.join(", ");
  const type = `${e.eventType}${e.advisory ? ADVISORY_MARK : ""}`;
  return `${name} ${type} [${who}] ${e.phase}: ${e.waitingFor ?? "nothing"}`;
}

function summaryLines(c: ClusterSummary): string[] {
  const lines = [
    `cluster ${c.cluster}: ${c.liveMembers}/${c.memberCount} relays live, ${c.activeEventCount} active event(s)`,
  ];
  for (const g of c.groups)
    lines.push(
      `  ${g.kind}${g.name ? ` ${g.name}` : ""}: ${g.liveMembers}/${g.memberCount} live${approvalText(g.controlPlaneApproval)}`,
    );
  return lines;
}

/**
 * Whether Azure offers approval through ARM where the group runs, since when and how it was
 * learnt (docs/control-plane.md, "Where Azure offers approval"); nothing without the control plane.
 */
export function approvalText(a: ClusterSummary["groups"][number]["controlPlaneApproval"]): string {
  if (!a) return "";
  const relies = a.relies ? ", relied on" : "";
  if (a.availability === "unknown") return `; control-plane approval unknown${relies}`;
  const what = a.availability === "available" ? "available" : "NOT available";
  return `; control-plane approval ${what} in ${a.region} since ${a.since} (${a.how}: ${a.detail})${relies}${a.relies && a.availability === "notAvailable" ? " !" : ""}`;
}

const more = (token: string | null) =>
  token ? [`(more: --continuation ${token}, or --all for every page)`] : [];

export function renderCluster(c: ClusterPage): string[] {
  const lines = summaryLines(c);
  const dead = c.members.filter((m) => !m.live).map((m) => `${m.vm} (${m.lastSeenSecondsAgo} s)`);
  if (dead.length > 0) lines.push(`  not live: ${dead.join(", ")}`);
  for (const m of c.members)
    for (const p of m.imdsProblems) lines.push(`  ${m.vm}: IMDS ${p.kind} problem: ${p.detail}`);
  if (c.activeEvents.length === 0) lines.push("  no active events");
  for (const e of c.activeEvents) lines.push(`  ${eventLine(e)}`);
  if (c.activeEvents.length < c.activeEventCount)
    lines.push(
      `  (${c.activeEventCount - c.activeEvents.length} more: quiesce status --cluster ${c.cluster} --all)`,
    );
  for (const e of c.recentEndedEvents) lines.push(`  ended: ${eventLine(e)}`);
  return [...lines, ...more(c.continuation)];
}

export function renderStatus(s: StatusPage): string {
  if (s.clusters.length === 0 && s.events.length === 0) return "no cluster has reported yet";
  const lines = s.clusters.flatMap(summaryLines);
  lines.push(s.events.length === 0 ? "no events" : "events:");
  for (const e of s.events) lines.push(`  ${e.cluster}: ${eventLine(e)}`);
  return [...lines, ...more(s.continuation)].join("\n");
}

export function renderEventDetail(d: EventDetail): string {
  const lines = [
    `${d.eventId} (${d.eventType}${d.advisory ? ", advisory" : ""}, ${d.eventSource ?? "?"}) in cluster ${d.cluster}`,
    `  phase      ${d.phase} since ${d.phaseSince}`,
    ...(d.advisory
      ? ["  advisory   never approved: hold, force-approve and force-gate are refused"]
      : []),
    `  resources  ${d.resources.join(", ")}`,
    `  NotBefore  ${d.notBefore ?? "(none)"}`,
    `  waiting    ${d.waitingFor ?? "nothing"}`,
  ];
  for (const b of d.blockers) lines.push(`    ${b.vm}: ${b.reason} (${b.detail})`);
  for (const g of d.gates) lines.push(`    gate ${g.name}: ${g.detail}`);
  if (d.drained.length > 0) lines.push(`  drained    ${d.drained.join(", ")}`);
  const a = d.approval;
  if (a.rule) lines.push(`  rule       ${a.rule}`);
  if (d.maintenanceWindow) lines.push(`  window     ${d.maintenanceWindow}`);
  if (a.lease) lines.push(`  lease      ${a.lease.holder} until ${a.lease.expiresAt}`);
  if (a.approvedBy)
    lines.push(
      `  approved   by ${a.approvedBy}${a.via === "controlPlane" ? " (through Azure Resource Manager)" : ""} at ${a.approvedAt ?? "?"}`,
    );
  const cp = a.controlPlane;
  if (cp?.lastError)
    lines.push(
      `  control plane  ${cp.attempts} attempt(s)${cp.gaveUp ? ", gave up" : ""}; last: ${cp.lastError.outcome ? `${cp.lastError.outcome}, ` : ""}ARM ${cp.lastError.status} ${cp.lastError.code}: ${cp.lastError.message}`,
    );
  for (const r of d.readiness.filter((x) => x.loadBalancer))
    lines.push(
      `  load balancer  ${r.vm}: ${r.loadBalancer?.state}${r.loadBalancer?.error ? ` (${r.loadBalancer.error})` : ""}`,
    );
  if (a.failedApprovers.length > 0) lines.push(`  failed     ${a.failedApprovers.join(", ")}`);
  lines.push(d.timelineTruncated ? "  timeline (newest entries only)" : "  timeline");
  for (const t of d.timeline) lines.push(`    ${t.at}  ${t.reason}`);
  return lines.join("\n");
}

/** An operator action's outcome; a replaced or removed override is named, never left unsaid. */
export function renderOperatorAnswer(
  command: string,
  target: string,
  r: Pick<OperatorAnswer, "replaced">,
): string {
  const o = r.replaced;
  if (!o) return `${command} ${target}: done`;
  const what = o.kind === "hold" ? "hold" : "force-approve";
  const verb = command === "release" ? "removed" : "replaced";
  return `${command} ${target}: done; ${verb} the ${what} by ${o.by} (since ${o.at}, until ${o.expiresAt}): ${o.reason}`;
}
