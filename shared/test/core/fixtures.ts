import {
  applyReport,
  type ClusterState,
  DEFAULT_POLICY,
  type Decision,
  emptyClusterState,
  explain,
  type HookRun,
  memberKey,
  type Policy,
  type RelayReport,
  type ScheduledEvent,
  tick,
} from "../../src";

export const T0 = Date.parse("2022-04-11T22:00:00Z");
export const policy = (p: Partial<Policy> = {}): Policy => ({ ...DEFAULT_POLICY, ...p });

export function scheduled(
  id: string,
  resources: string[],
  extra: Partial<ScheduledEvent> = {},
): ScheduledEvent {
  return {
    EventId: id,
    EventType: "Freeze",
    ResourceType: "VirtualMachine",
    Resources: resources,
    EventStatus: "Scheduled",
    NotBefore: new Date(T0 + 15 * 60_000).toUTCString(),
    Description: "Host server is undergoing maintenance.",
    EventSource: "Platform",
    DurationInSeconds: 5,
    ...extra,
  };
}

export const started = (e: ScheduledEvent): ScheduledEvent => ({
  ...e,
  EventStatus: "Started",
  NotBefore: "",
});

export function run(status: HookRun["status"], attempt = 1): HookRun {
  return {
    status,
    attempt,
    startedAt: new Date(T0).toISOString(),
    ...(status === "running" ? {} : { finishedAt: new Date(T0 + 1000).toISOString() }),
  };
}

export interface ReportOptions {
  cluster?: string;
  hooks?: RelayReport["hooks"];
  approvals?: RelayReport["approvals"];
  dryRun?: boolean;
  seq?: number;
}

export function report(
  vm: string,
  incarnation: number | null,
  events: ScheduledEvent[],
  o: ReportOptions = {},
): RelayReport {
  return {
    protocol: "1.0",
    cluster: o.cluster ?? "web",
    vm: {
      name: vm,
      vmId: `00000000-0000-0000-0000-${vm.length.toString().padStart(12, "0")}`,
      resourceId: `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/${vm}`,
    },
    relay: {
      version: "test",
      bootId: "boot-1",
      seq: o.seq ?? 0,
      ...(o.dryRun ? { dryRun: true } : {}),
    },
    document: incarnation === null ? null : { DocumentIncarnation: incarnation, Events: events },
    hooks: o.hooks ?? [],
    approvals: o.approvals ?? [],
    sentAt: new Date(T0).toISOString(),
  };
}

export const drained = (eventId: string, recover?: HookRun["status"]) => ({
  eventId,
  drain: run("succeeded"),
  ...(recover ? { recover: run(recover) } : {}),
});

export const approveIds = (d: Decision): string[] =>
  d.directives.flatMap((x) => (x.kind === "approve" ? x.eventIds : []));

/** Applies reports (and ticks) in order on one cluster's state, advancing a clock. */
export class Sim {
  state: ClusterState = emptyClusterState("web");
  now = T0;
  constructor(readonly p: Policy = policy()) {}
  send(r: RelayReport, advanceMs = 1000): Decision {
    this.now += advanceMs;
    const d = applyReport(this.state, r, this.now, this.p);
    this.state = d.state;
    return d;
  }
  tick(advanceMs: number): Decision {
    this.now += advanceMs;
    const d = tick(this.state, this.now, this.p);
    this.state = d.state;
    return d;
  }
  phase(id: string) {
    return this.state.events[id.toLowerCase()]?.phase;
  }
  event(id: string) {
    const e = this.state.events[id.toLowerCase()];
    if (!e) throw new Error(`no event ${id}`);
    return e;
  }
  member(vm: string) {
    return this.state.members[memberKey(vm)];
  }
  /** What the event waits for, on which VMs (the status API's explanation). */
  blockers(id: string) {
    return explain(this.state, id.toLowerCase(), this.now, this.p)?.blockers ?? [];
  }
}
