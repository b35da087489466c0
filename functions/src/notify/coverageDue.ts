import type { Coverage } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { iso, list, type Notification } from "./due";

/**
 * Coverage alerts (relays silent, groups uncovered, VMs named by an event without a relay,
 * attestation), one per subject and episode, from a coverage report (core/src/views/coverage.ts).
 */
export function coverageNotifications(c: Coverage, now: number, policy: Policy): Notification[] {
  const out: Notification[] = [];
  const silentMs = policy.notify.silentRelayMinutes * 60_000;
  for (const s of c.silent) {
    if (now - s.lastSeenAt < silentMs) continue;
    out.push({
      key: `relay|${s.vm.toLowerCase()}|${s.lastSeenAt}|relaySilent`,
      cluster: c.cluster,
      kind: "relaySilent",
      severity: "warning",
      at: s.lastSeenAt + silentMs,
      title: `${c.cluster}: relay on ${s.vm} stopped reporting`,
      text: `No report from ${s.vm} since ${iso(s.lastSeenAt)}. Its VM is not drained before maintenance; Scheduled Events switches itself off for a VM that makes no call for 24 h.`,
      facts: [
        { name: "VM", value: s.vm },
        { name: "Last report", value: iso(s.lastSeenAt) },
      ],
      vm: s.vm,
    });
  }
  for (const g of c.uncovered)
    out.push({
      key: `group|${g.kind}|${g.id}|${g.lastSeenAt}|groupUncovered`,
      cluster: c.cluster,
      kind: "groupUncovered",
      severity: "critical",
      at: g.lastSeenAt + policy.livenessTimeoutSeconds * 1000,
      title: `${c.cluster}: no live relay in ${g.kind} ${g.id}`,
      text: `None of the ${g.members} VM(s) of ${g.kind} ${g.id} has a live relay: maintenance there starts at NotBefore with nothing drained.`,
      facts: [
        { name: "Group", value: `${g.kind} ${g.id}` },
        { name: "Members", value: String(g.members) },
        { name: "Last report", value: iso(g.lastSeenAt) },
      ],
    });
  for (const u of c.unregistered)
    out.push({
      key: `event|${u.eventKey}|vmNeverRegistered`,
      cluster: c.cluster,
      kind: "vmNeverRegistered",
      severity: "warning",
      at: u.since,
      title: `${c.cluster}: event ${u.eventId} names VMs without a relay`,
      text: `Event ${u.eventId} names ${list(u.vms)}, which never registered: no relay drains them. ${withoutRelay(u.vms, policy)}`,
      facts: [
        { name: "Event", value: u.eventId },
        { name: "VMs", value: list(u.vms) },
        {
          name: "Quiesce",
          value: policy.agentless.enabled ? "drains them itself (agentless)" : "cannot drain them",
        },
      ],
      eventId: u.eventId,
    });
  for (const u of c.unattested)
    out.push({
      key: `relay|${u.vm.toLowerCase()}|${u.since}|attestationFailed|${u.code}`,
      cluster: c.cluster,
      kind: "attestationFailed",
      severity: "warning",
      at: u.since,
      title: `${c.cluster}: reports for ${u.vm} are not bound to it (${u.code})`,
      text: `Attestation of the relay reporting for ${u.vm}: ${u.detail}. Another VM's relay may be speaking for it (docs/auth.md, "Attestation").`,
      facts: [
        { name: "VM", value: u.vm },
        { name: "Check", value: u.code },
        { name: "Since", value: new Date(u.since).toISOString() },
      ],
      vm: u.vm,
    });
  return out.filter((n) => policy.notify.on.includes(n.kind));
}

/** A relay's own report of failing IMDS reads, past the policy's threshold. */

/** What Quiesce can and cannot do for an event's VMs that have no relay, in the cluster's policy. */
function withoutRelay(vms: readonly string[], policy: Policy): string {
  if (policy.agentless.enabled)
    return `The coordinator drains ${vms.length === 1 ? "it" : "them"} itself (agentless policy: ${policy.agentless.drain ? "its drain hook" : "no drain hook set"}${policy.loadBalancerDrain.enabled ? ", then the load balancer" : ""}) and approves through Azure Resource Manager when no relay can.`;
  return policy.unmanagedVms === "block"
    ? "Quiesce cannot drain or approve for them: the event waits for NotBefore (unmanagedVms: block). Install a relay, or turn on the agentless policy for this cluster."
    : "Quiesce cannot drain them, and approves without them (unmanagedVms: ignore).";
}
