import { withEntry } from "@quiesce/protocol";
import { gateNames, type Policy } from "@quiesce/protocol/policy";
import { evaluateEvent, isEnded } from "../lifecycle/evaluate";
import { isAdvisoryEvent } from "../model/eventTypes";
import type { ClusterState, EventRecord, OperatorOverride, Transition } from "../model/state";
import type { Decision, OperatorAction } from "../model/types";
import { activeOverride } from "../rules/approval";
import type { EvaluationInputs } from "../rules/gates";

export class OperatorActionError extends Error {
  override name = "OperatorActionError";
  constructor(
    message: string,
    /**
     * conflict: the action would take away another operator's override without `replace`.
     * advisory: a hold, force-approve or force-gate of an advisory event (isAdvisoryEvent), which
     * is never approved, so the action could change nothing.
     */
    readonly code: "notFound" | "ended" | "unreadable" | "conflict" | "advisory",
  ) {
    super(message);
  }
}

/** A hold or force-approve an operator action took the place of (or a release removed). */
export type ReplacedOverride = OperatorOverride & { kind: "hold" | "forceApprove" };

const iso = (ms: number) => new Date(ms).toISOString();
const WORDS = { hold: "hold", forceApprove: "force-approve" } as const;
const ACTION_WORDS = { ...WORDS, release: "release", forceGate: "force-gate" } as const;
const describe = (o: ReplacedOverride) =>
  `the ${WORDS[o.kind]} by ${o.by} since ${iso(o.at)} (until ${iso(o.expiresAt)}): "${o.reason}"`;

/**
 * The override `action` takes away from the event: a hold and a force-approve exclude each other
 * and each replaces its own kind, a release removes either; null when none is in force (an
 * expired one is no one's any more). Pure, so the coordinator can say what a landed round replaced
 * from the state that round read.
 */
export function overrideReplaced(
  e: Pick<EventRecord, "hold" | "force">,
  action: OperatorAction,
  now: number,
): ReplacedOverride | null {
  if (action.kind === "forceGate") return null;
  const hold = activeOverride(e.hold, now);
  const force = activeOverride(e.force, now);
  if (hold) return { kind: "hold", ...hold };
  if (force) return { kind: "forceApprove", ...force };
  return null;
}

/**
 * Hold, release or force-approve one event; audited through the returned transitions, which name
 * any override the action replaced. A hold never silently lifts another operator's force-approve,
 * nor a force-approve a hold: without `replace` that is refused ("conflict", naming who holds
 * what since when), with it the transition says what was replaced. An advisory event takes no
 * hold, force-approve or force-gate ("advisory": there is nothing to approve); a release is taken,
 * so an override an earlier release let an operator put on one can still be removed.
 */
export function applyOperatorAction(
  state: ClusterState,
  key: string,
  action: OperatorAction,
  now: number,
  policy: Policy,
  inputs: EvaluationInputs = {},
): Decision {
  const stored = state.events[key];
  const unreadable = state.unreadableEvents?.[key];
  if (unreadable)
    throw new OperatorActionError(
      `event ${key}'s stored row cannot be read (${unreadable.problem}): delete the row to reset it (docs/coordinator.md, "Unreadable rows")`,
      "unreadable",
    );
  if (!stored)
    throw new OperatorActionError(
      `event ${key} is not known in cluster ${state.cluster}`,
      "notFound",
    );
  if (isEnded(stored))
    throw new OperatorActionError(
      `event ${stored.eventId} already ended (${stored.phase})`,
      "ended",
    );
  if (isAdvisoryEvent(stored) && action.kind !== "release")
    throw new OperatorActionError(
      `event ${stored.eventId} is a ${stored.eventType}: advisory, there is nothing to approve or hold (a ${ACTION_WORDS[action.kind]} would change nothing)`,
      "advisory",
    );
  const by = action.by;
  const replaced = overrideReplaced(stored, action, now);
  const crossing =
    replaced !== null &&
    (action.kind === "hold" || action.kind === "forceApprove") &&
    replaced.kind !== action.kind;
  if (crossing && action.replace !== true)
    throw new OperatorActionError(
      `event ${stored.eventId} has ${describe(replaced)}; a ${WORDS[action.kind]} would remove it: release it first, or repeat with replace: true (CLI --replace)`,
      "conflict",
    );
  let updated: EventRecord;
  let reason: string;
  switch (action.kind) {
    case "hold": {
      const expiresAt = now + action.ttlSeconds * 1000;
      updated = { ...stored, hold: { by, reason: action.reason, at: now, expiresAt }, force: null };
      reason = `held by ${by} until ${new Date(expiresAt).toISOString()}: ${action.reason}`;
      break;
    }
    case "release":
      updated = { ...stored, hold: null, force: null };
      reason = `released by ${by}: ${action.reason}`;
      break;
    case "forceApprove": {
      const expiresAt = now + action.ttlSeconds * 1000;
      updated = { ...stored, force: { by, reason: action.reason, at: now, expiresAt }, hold: null };
      reason = `force-approve by ${by} until ${new Date(expiresAt).toISOString()}: ${action.reason}`;
      break;
    }
    case "forceGate": {
      if (!gateNames(policy).includes(action.gate))
        throw new OperatorActionError(
          `cluster ${state.cluster} has no gate named ${action.gate} (its policy's gates: ${gateNames(policy).join(", ") || "none"})`,
          "notFound",
        );
      const expiresAt = now + action.ttlSeconds * 1000;
      const others = (stored.gateOverrides ?? []).filter(
        (o) => o.gate !== action.gate && o.expiresAt > now,
      );
      const override = { gate: action.gate, by, reason: action.reason, at: now, expiresAt };
      updated = { ...stored, gateOverrides: [...others, override] };
      reason = `force past gate ${action.gate} by ${by} until ${new Date(expiresAt).toISOString()}: ${action.reason}`;
      break;
    }
  }
  if (replaced)
    reason += ` (${action.kind === "release" ? "removes" : "replaces"} ${describe(replaced)})`;
  const transitions: Transition[] = [
    { eventKey: key, at: now, from: stored.phase, to: stored.phase, reason: `operator: ${reason}` },
  ];
  const withAction: ClusterState = { ...state, events: withEntry(state.events, key, updated) };
  const evaluated = evaluateEvent(withAction, updated, now, policy, null, inputs);
  return {
    state: { ...withAction, events: withEntry(withAction.events, key, evaluated.event) },
    transitions: [...transitions, ...evaluated.transitions],
    forget: [],
  };
}
