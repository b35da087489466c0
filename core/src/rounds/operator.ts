import { withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import { evaluateEvent, isEnded } from "../lifecycle/evaluate";
import type { ClusterState, EventRecord, Transition } from "../model/state";
import type { Decision, OperatorAction } from "../model/types";
import type { EvaluationInputs } from "../rules/gates";

export class OperatorActionError extends Error {
  override name = "OperatorActionError";
  constructor(
    message: string,
    readonly code: "notFound" | "ended" | "unreadable",
  ) {
    super(message);
  }
}

/** Hold, release or force-approve one event; audited through the returned transitions. */
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
  const by = action.by;
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
      if (!policy.gates.some((g) => g.name === action.gate))
        throw new OperatorActionError(
          `cluster ${state.cluster} has no gate named ${action.gate} (its policy's gates: ${policy.gates.map((g) => g.name).join(", ") || "none"})`,
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
