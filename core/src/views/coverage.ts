import type { Policy } from "@quiesce/protocol/policy";
import { isEnded } from "../lifecycle/evaluate";
import { isAdvisoryEvent } from "../model/eventTypes";
import { type ClusterState, type Member, memberKey } from "../model/state";
import { isLive } from "../rules/liveness";

/**
 * Which VMs and groups have a live relay. Maintenance reaches a whole placement group, scale set
 * or zone at once, so a group where no relay is live is one where nothing drains before Azure
 * starts the event. IMDS does not name a VM's availability set; its VMs share the events'
 * `Resources`, which `unregistered` covers. Pure: state, clock and policy in, a report out.
 */

/** The status API's group kinds (protocol/src/status/views.ts) that instance metadata can tell. */
export type CoveredGroupKind = "placementGroup" | "scaleSet" | "zone";

export interface GroupCoverage {
  kind: CoveredGroupKind;
  id: string;
  members: number;
  live: number;
  /** The most recent report of any member: fixes one "no live relay" episode. */
  lastSeenAt: number;
}

export interface SilentMember {
  vm: string;
  lastSeenAt: number;
}

export interface Coverage {
  cluster: string;
  members: number;
  live: number;
  /** Members not live (their relay stopped reporting, or the VM is gone). */
  silent: SilentMember[];
  groups: GroupCoverage[];
  /** Groups with at least one member and no live relay at all. */
  uncovered: GroupCoverage[];
  /** VMs an active event names that never registered, per event. */
  unregistered: Array<{ eventId: string; eventKey: string; vms: string[]; since: number }>;
  /** Members whose attestation an operator should look at (attestation.ts), one episode each. */
  unattested: UnattestedMember[];
}

export interface UnattestedMember {
  vm: string;
  /** A refusal's code, "contested", or "unbound" (reports without the binding for too long). */
  code: string;
  detail: string;
  /** Fixes the episode: the problem's time, or since when the reports are unbound. */
  since: number;
}

/**
 * Reports without the binding this long are alerted on: a restarted relay proves itself within
 * one report round, so what lasts is a relay that cannot or will not (docs/auth.md).
 */
export const UNBOUND_ALERT_AFTER_MS = 5 * 60_000;

function unattested(m: Member, now: number): UnattestedMember[] {
  const a = m.attestation;
  if (!a) return [];
  const out: UnattestedMember[] = [];
  if (a.problem)
    out.push({ vm: m.vmName, code: a.problem.code, detail: a.problem.detail, since: a.problem.at });
  const u = a.unbound;
  // A relay too old to attest is worth an alert only where the VM had been bound (a downgrade).
  if (u && now - u.since >= UNBOUND_ALERT_AFTER_MS && (u.canAttest || a.binding))
    out.push({ vm: m.vmName, code: "unbound", detail: u.why, since: u.since });
  return out;
}

/** Unlike the status API's one group per member, a member counts in each group it belongs to. */
const groupIds = (m: Member): Array<[CoveredGroupKind, string]> => {
  const out: Array<[CoveredGroupKind, string]> = [];
  if (m.vm.placementGroupId) out.push(["placementGroup", m.vm.placementGroupId]);
  if (m.vm.vmScaleSetName) out.push(["scaleSet", m.vm.vmScaleSetName]);
  if (m.vm.zone) out.push(["zone", m.vm.zone]);
  return out;
};

/** `state` must hold every member of the cluster (the sweep's and status API's load does). */
export function coverage(state: ClusterState, now: number, policy: Policy): Coverage {
  const members = Object.values(state.members);
  const groups = new Map<string, GroupCoverage>();
  const silent: SilentMember[] = [];
  let live = 0;
  for (const m of members) {
    const up = isLive(m, now, policy);
    if (up) live++;
    else silent.push({ vm: m.vmName, lastSeenAt: m.lastSeenAt });
    for (const [kind, id] of groupIds(m)) {
      const k = `${kind}\n${id}`;
      const g = groups.get(k) ?? { kind, id, members: 0, live: 0, lastSeenAt: 0 };
      g.members++;
      if (up) g.live++;
      g.lastSeenAt = Math.max(g.lastSeenAt, m.lastSeenAt);
      groups.set(k, g);
    }
  }
  const unregistered: Coverage["unregistered"] = [];
  for (const e of Object.values(state.events)) {
    // An advisory event owes its VMs nothing (no drain is awaited, nothing is approved).
    if (isEnded(e) || isAdvisoryEvent(e)) continue;
    const vms = e.resources.filter((r) => !state.members[memberKey(r)]);
    if (vms.length > 0)
      unregistered.push({ eventId: e.eventId, eventKey: e.key, vms, since: e.firstSeenAt });
  }
  const all = [...groups.values()].sort(
    (a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id),
  );
  return {
    cluster: state.cluster,
    unattested: members.flatMap((m) => unattested(m, now)),
    members: members.length,
    live,
    silent: silent.sort((a, b) => a.vm.localeCompare(b.vm)),
    groups: all,
    uncovered: all.filter((g) => g.live === 0),
    unregistered,
  };
}
