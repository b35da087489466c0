import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import type { ClockView, Timeline } from "./engine";
import type { InjectFaultInput, ScheduleEventInput } from "./model/commands";
import type { Fault, SimEvent } from "./model/types";
import { FabricControlError } from "./simulator";
import type { GroupRecord, GroupSpec, TopologyInput, VmRecord } from "./topology";

export interface TopologyView {
  readonly groups: GroupRecord[];
  readonly vms: Array<VmRecord & { imdsUrl: string }>;
}

/**
 * The control API over HTTP, for a simulator in another process (the CLI). Same operations as
 * the in-process `FabricSimulator`; failures throw `FabricControlError` with the HTTP status.
 */
export class FabricControlClient {
  private readonly base: string;

  constructor(simulatorUrl: string) {
    this.base = `${simulatorUrl.replace(/\/+$/, "")}/control`;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json: unknown = text === "" ? undefined : JSON.parse(text);
    if (!res.ok) {
      const err = (json ?? {}) as {
        error?: string;
        issues?: Array<{ path: string; message: string }>;
      };
      throw new FabricControlError(res.status, err.error ?? `HTTP ${res.status}`, err.issues);
    }
    return json as T;
  }

  health = () => this.call<{ ok: true }>("GET", "/health");
  clock = () => this.call<ClockView>("GET", "/clock");
  advance = (seconds: number) => this.call<ClockView>("POST", "/clock/advance", { seconds });
  topology = () => this.call<TopologyView>("GET", "/topology");
  loadTopology = (topology: TopologyInput) =>
    this.call<TopologyView>("POST", "/topology", topology);
  addGroups = (groups: GroupSpec[]) =>
    this.call<{ vms: Array<{ name: string; imdsUrl: string }> }>("POST", "/groups", { groups });
  jumpIncarnation = (group: string, by = 1) =>
    this.call<{ group: string; incarnation: number }>(
      "POST",
      `/groups/${encodeURIComponent(group)}/incarnation-jump`,
      { by },
    );
  document = (group: string) =>
    this.call<ScheduledEventsDocument>("GET", `/groups/${encodeURIComponent(group)}/document`);
  events = () => this.call<SimEvent[]>("GET", "/events");
  event = (eventId: string) => this.call<SimEvent>("GET", `/events/${encodeURIComponent(eventId)}`);
  schedule = (event: ScheduleEventInput) => this.call<SimEvent>("POST", "/events", event);
  cancel = (eventId: string) =>
    this.call<SimEvent>("POST", `/events/${encodeURIComponent(eventId)}/cancel`);
  startNow = (eventId: string) =>
    this.call<SimEvent>("POST", `/events/${encodeURIComponent(eventId)}/start`);
  changeResources = (eventId: string, resources: string[]) =>
    this.call<SimEvent>("POST", `/events/${encodeURIComponent(eventId)}/resources`, { resources });
  faults = () => this.call<Fault[]>("GET", "/faults");
  injectFault = (fault: InjectFaultInput) => this.call<Fault[]>("POST", "/faults", fault);
  clearFaults = (vm?: string) =>
    this.call<{ cleared: number }>(
      "DELETE",
      vm === undefined ? "/faults" : `/faults?vm=${encodeURIComponent(vm)}`,
    );
  timeline = (since = 0) => this.call<Timeline>("GET", `/timeline?since=${since}`);
  reset = () => this.call<{ ok: true }>("POST", "/reset");
}
