import { expandTopology, type Topology } from "../topology/topology";
import { fail, ok } from "./state";
import type { FabricOptions, FabricState, Outcome } from "./types";

/**
 * The fabric's functional core: every function takes the state and an instant and returns the
 * next state. No clock, no I/O, no randomness (event ids come in with the command), so the
 * shell can be driven by a real scaled clock or stepped by a test.
 */

export const DEFAULT_OPTIONS: FabricOptions = {
  requireAllApprovals: false,
  minStartedSeconds: 10,
  initialIncarnation: 1,
  deleteOnEviction: true,
};

export function createFabric(
  topology: Topology,
  options: Partial<FabricOptions> = {},
): Outcome<FabricState> {
  const opts: FabricOptions = {
    requireAllApprovals: options.requireAllApprovals ?? DEFAULT_OPTIONS.requireAllApprovals,
    minStartedSeconds: options.minStartedSeconds ?? DEFAULT_OPTIONS.minStartedSeconds,
    initialIncarnation: options.initialIncarnation ?? DEFAULT_OPTIONS.initialIncarnation,
    deleteOnEviction: options.deleteOnEviction ?? DEFAULT_OPTIONS.deleteOnEviction,
  };
  if (
    !(opts.minStartedSeconds >= 0) ||
    !Number.isInteger(opts.initialIncarnation) ||
    opts.initialIncarnation < 0
  ) {
    return fail(
      400,
      "minStartedSeconds must be >= 0 and initialIncarnation a non-negative integer",
    );
  }
  const expanded = expandTopology(topology, opts.initialIncarnation);
  if (!expanded.ok) return fail(400, expanded.error);
  const state: FabricState = {
    options: opts,
    topology,
    vms: expanded.value.vms,
    groups: expanded.value.groups,
    active: [],
    past: [],
    faults: [],
    timeline: [],
    nextSeq: 1,
    nextFaultId: 1,
  };
  return ok(state, state);
}

/** Back to the topology's first state: no events, no faults, empty timeline. */
export function resetFabric(state: FabricState): FabricState {
  const r = createFabric(state.topology, state.options);
  if (!r.ok) throw new Error(`topology that loaded once failed to reload: ${r.error.message}`);
  return r.value.state;
}

/** Add groups (and their VMs) to a running fabric; names must not collide with existing ones. */
export function addGroups(state: FabricState, groups: Topology["groups"]): Outcome<string[]> {
  const expanded = expandTopology({ ...state.topology, groups }, state.options.initialIncarnation);
  if (!expanded.ok) return fail(400, expanded.error);
  const existing = new Set(Object.keys(state.vms).map((n) => n.toLowerCase()));
  for (const name of Object.keys(expanded.value.vms)) {
    if (existing.has(name.toLowerCase())) return fail(409, `VM ${name} already exists`);
  }
  for (const name of Object.keys(expanded.value.groups)) {
    if (state.groups[name]) return fail(409, `group ${name} already exists`);
  }
  return ok(
    {
      ...state,
      topology: { ...state.topology, groups: [...state.topology.groups, ...groups] },
      vms: { ...state.vms, ...expanded.value.vms },
      groups: { ...state.groups, ...expanded.value.groups },
    },
    Object.keys(expanded.value.vms),
  );
}

export {
  acknowledgeFromControlPlane,
  type ControlPlaneAcknowledge,
  startRequests,
} from "./approvals";
export { deleteInstances } from "./deleteInstances";
export {
  cancelEvent,
  changeResources,
  jumpIncarnation,
  scheduleEvent,
  startEventNow,
} from "./events";
export { clearFaults, type ImdsRoute, injectFault, takeFault } from "./faults";
export { advance } from "./time";
