import type { InjectFault } from "./commands";
import { append, fail, findVm, ok } from "./state";
import type { FabricState, Fault, FaultRoute, Instant, Outcome } from "./types";

export function expireFaults(state: FabricState, nowMs: number): FabricState {
  const live = state.faults.filter((f) => f.untilMs === undefined || f.untilMs > nowMs);
  return live.length === state.faults.length ? state : { ...state, faults: live };
}

export function injectFault(state: FabricState, cmd: InjectFault, at: Instant): Outcome<Fault[]> {
  let vms: string[];
  if (cmd.vm !== undefined) {
    const vm = findVm(state, cmd.vm);
    if (!vm) return fail(404, `no VM ${cmd.vm}`);
    vms = [vm.name];
  } else {
    const g = state.groups[cmd.group as string];
    if (!g) return fail(404, `no group ${cmd.group}`);
    vms = [...g.vms];
  }
  let next = state;
  const added: Fault[] = [];
  for (const vm of vms) {
    const fault: Fault = {
      id: next.nextFaultId,
      vm,
      route: cmd.route,
      ...(cmd.status !== undefined ? { status: cmd.status } : {}),
      ...(cmd.latencyMs !== undefined ? { latencyMs: cmd.latencyMs } : {}),
      ...(cmd.count !== undefined ? { remaining: cmd.count } : {}),
      ...(cmd.durationSeconds !== undefined
        ? { untilMs: at.simMs + cmd.durationSeconds * 1000 }
        : {}),
      served: 0,
    };
    added.push(fault);
    next = { ...next, faults: [...next.faults, fault], nextFaultId: next.nextFaultId + 1 };
    next = append(next, { kind: "faultInjected", vm, detail: describeFault(fault), at });
  }
  return ok(next, added);
}

function describeFault(f: Fault): string {
  const what = [
    f.status !== undefined ? `HTTP ${f.status}` : "",
    f.latencyMs !== undefined ? `+${f.latencyMs} ms` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  const span = [
    f.remaining !== undefined ? `for ${f.remaining} requests` : "",
    f.untilMs !== undefined ? `until ${new Date(f.untilMs).toISOString()} (simulated)` : "",
  ]
    .filter(Boolean)
    .join(" or ");
  return `${what} on ${f.route} IMDS requests ${span || "until cleared"}`;
}

export function clearFaults(state: FabricState, vm: string | undefined, at: Instant): FabricState {
  const faults = vm === undefined ? [] : state.faults.filter((f) => f.vm !== vm);
  return append(
    { ...state, faults },
    {
      kind: "faultsCleared",
      ...(vm !== undefined ? { vm } : {}),
      detail: vm === undefined ? "all faults cleared" : `faults of ${vm} cleared`,
      at,
    },
  );
}

export type ImdsRoute = Exclude<FaultRoute, "any">;

/**
 * What the faults say about one IMDS request: the first matching error status and the largest
 * matching latency; every matching fault counts the request against its `count`. A request
 * answered with an injected error goes on the timeline (`faultServed`), so a test can tell a
 * StartRequests that never reached the fabric from one that was never sent.
 */
export function takeFault(
  state: FabricState,
  vm: string,
  route: ImdsRoute,
  at: Instant,
): { state: FabricState; status?: number; latencyMs?: number } {
  if (state.faults.length === 0) return { state };
  const nowMs = at.simMs;
  let status: number | undefined;
  let latencyMs: number | undefined;
  let touched = false;
  const faults: Fault[] = [];
  for (const f of state.faults) {
    const live = f.untilMs === undefined || f.untilMs > nowMs;
    if (f.vm !== vm || !live || (f.route !== "any" && f.route !== route)) {
      if (live) faults.push(f);
      continue;
    }
    touched = true;
    if (status === undefined && f.status !== undefined) status = f.status;
    if (f.latencyMs !== undefined) latencyMs = Math.max(latencyMs ?? 0, f.latencyMs);
    const remaining = f.remaining === undefined ? undefined : f.remaining - 1;
    if (remaining === undefined || remaining > 0) {
      faults.push({
        ...f,
        served: f.served + 1,
        ...(remaining !== undefined ? { remaining } : {}),
      });
    }
  }
  if (!touched && faults.length === state.faults.length) return { state };
  const next: FabricState = { ...state, faults };
  return {
    state:
      status === undefined
        ? next
        : append(next, { kind: "faultServed", vm, detail: `HTTP ${status} on ${route}`, at }),
    ...(status !== undefined ? { status } : {}),
    ...(latencyMs !== undefined ? { latencyMs } : {}),
  };
}
