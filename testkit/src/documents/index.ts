import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { HookRun, RelayReport } from "@quiesce/protocol/relay";

/**
 * Builders for the documents relays send (IMDS Scheduled Events inside a relay report), at a
 * fixed time T0, for unit tests of the protocol, the core and the coordinator's pure parts.
 */

export const T0 = Date.parse("2022-04-11T22:00:00Z");
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

export { AS_SCOPE, PUBLISHED_ID, published } from "./published";
