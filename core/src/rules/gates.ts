import {
  type Gate,
  GUEST_PATCHING_GATE,
  holdsDuringPatching,
  type Policy,
} from "@quiesce/protocol/policy";
import {
  type ClusterState,
  type EventRecord,
  type FailingGate,
  type Member,
  memberKey,
} from "../model/state";
import { activeOverride } from "./approval";
import { isLive } from "./liveness";

/**
 * Safety gates: checks that must pass before any approval, by a relay or the control plane.
 * The shell evaluates them (an HTTP probe, an alert rule through ARM, the live relays over a load
 * of the whole cluster) and hands the verdicts to the core, which only combines them: a gate with
 * no verdict in a round counts as not passed (unknown), so a round that did not evaluate the
 * gates can never approve past them.
 */
export interface GateVerdict {
  name: string;
  pass: boolean;
  detail: string;
  /** For a gate counted per group: the group this verdict is about. */
  group?: string;
}

/** What the shell evaluated for this round, beyond the state and the policy. */
export interface EvaluationInputs {
  /** Absent: the gates were not evaluated in this round. */
  gates?: readonly GateVerdict[];
}

export interface GateCheck {
  /** Gates known to fail for this event (forced-past ones left out). */
  failing: FailingGate[];
  /** Some gate has no verdict in this round: nothing may be approved on it. */
  unknown: boolean;
}

export const NO_GATES: GateCheck = { failing: [], unknown: false };

export function checkGates(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
  inputs: EvaluationInputs,
): GateCheck {
  if (!hasGates(policy)) return NO_GATES;
  const forced = new Set(
    (e.gateOverrides ?? []).filter((o) => activeOverride(o, now)).map((o) => o.gate),
  );
  const failing: FailingGate[] = [];
  let unknown = false;
  for (const gate of policyGates(policy)) {
    if (forced.has(gate.name)) continue;
    const verdicts = (inputs.gates ?? []).filter((v) => v.name === gate.name);
    const relevant =
      gate.kind === "liveRelays" && gate.per === "group"
        ? verdicts.filter((v) => v.group !== undefined && eventGroups(state, e).has(v.group))
        : verdicts.filter((v) => v.group === undefined);
    if (relevant.length === 0) {
      // A per-group gate whose groups have no verdict: the event's VMs have no member rows
      // (nothing to count them by), so it holds nothing up; any other gate is simply unknown.
      if (!(gate.kind === "liveRelays" && gate.per === "group" && inputs.gates)) unknown = true;
      continue;
    }
    const failed = relevant.filter((v) => !v.pass);
    if (failed.length > 0)
      failing.push({ name: gate.name, detail: failed.map((v) => v.detail).join("; ") });
  }
  return { failing, unknown };
}

/** The policy's gates, with the one `guestPatching.holdApprovalsDuringPatching` adds (guestPatching.ts). */
export function policyGates(
  policy: Policy,
): ReadonlyArray<Gate | { kind: "guestPatching"; name: string }> {
  return holdsDuringPatching(policy.guestPatching)
    ? [...policy.gates, { kind: "guestPatching", name: GUEST_PATCHING_GATE }]
    : policy.gates;
}

/** Whether any gate must pass before approval. */
export const hasGates = (policy: Policy): boolean =>
  policy.gates.length > 0 || holdsDuringPatching(policy.guestPatching);

/** Whether the gates allow approval now. */
export const gatesPass = (c: GateCheck): boolean => !c.unknown && c.failing.length === 0;

/**
 * The group a member counts in for a per-group gate: its placement group, else its scale set.
 * IMDS does not name an availability set, so members with neither count as one group, "vms".
 */
export function groupOf(m: Member): string {
  return m.vm.placementGroupId ?? m.vm.vmScaleSetName ?? "vms";
}

function eventGroups(state: ClusterState, e: EventRecord): Set<string> {
  const groups = new Set<string>();
  for (const vm of e.resources) {
    const m = state.members[memberKey(vm)];
    if (m) groups.add(groupOf(m));
  }
  return groups;
}

/**
 * The verdicts of a live-relays gate, from a state holding every member of the cluster and the
 * readiness rows of its active events (the sweep's load): live relays whose VM is not in a drain
 * (draining, or drained and not yet recovered, for an event not ended). A Ready event's own VMs
 * are all drained, so they are never counted as remaining.
 */
export function liveRelaysVerdicts(
  state: ClusterState,
  now: number,
  policy: Policy,
  gate: Extract<Gate, { kind: "liveRelays" }>,
): GateVerdict[] {
  const inDrain = new Set<string>();
  for (const e of Object.values(state.events)) {
    if (e.phase === "Completed" || e.phase === "Cancelled") continue; // ended
    for (const [mk, r] of Object.entries(state.readiness[e.key] ?? {}))
      if (r.drain !== null && r.recover?.status !== "succeeded") inDrain.add(mk);
  }
  const counts = new Map<string, { serving: number; members: number }>();
  for (const [mk, m] of Object.entries(state.members)) {
    const key = gate.per === "group" ? groupOf(m) : "";
    const c = counts.get(key) ?? { serving: 0, members: 0 };
    c.members++;
    if (isLive(m, now, policy) && !inDrain.has(mk)) c.serving++;
    counts.set(key, c);
  }
  if (gate.per === "cluster" && counts.size === 0) counts.set("", { serving: 0, members: 0 });
  return [...counts].map(([group, c]) => ({
    name: gate.name,
    pass: c.serving >= gate.min,
    detail: `${c.serving} of ${c.members} relays${group ? ` in group ${group}` : ""} live and not draining; at least ${gate.min} must remain`,
    ...(gate.per === "group" ? { group } : {}),
  }));
}

/**
 * Whether evaluating the policy's gates needs every member of the cluster (a live-relays gate
 * counts them): a load of one event's rows (a report's, a delivery's) must read the whole cluster.
 */
export const countsEveryMember = (policy: Policy): boolean =>
  policy.gates.some((g) => g.kind === "liveRelays");
