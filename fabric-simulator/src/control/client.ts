import { delay, parseJsonWith } from "@quiesce/protocol";
import { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { z } from "zod";
import {
  type ArmFaultInput,
  type FireAlertInput,
  type GrantInput,
  MaintenanceBehaviour,
  type MaintenanceBehaviourInput,
  type RegisterIdentityInput,
  type RevokeInput,
} from "../arm/commands";
import type { CreateSubscriptionInput, DeliveryFaults } from "../eventGrid/commands";
import { DeliveryAnswer, SubscriptionAnswer, type SubscriptionView } from "../eventGrid/types";
import type { DeleteInstancesInput, InjectFaultInput, ScheduleEventInput } from "../model/commands";
import { FabricControlError } from "../model/controlResult";
import type { AdminState } from "../topology/armTopology";
import type { GroupRecord, GroupSpec, TopologyInput, VmRecord } from "../topology/topology";
import {
  AddedGroupsAnswer,
  ClearedAnswer,
  ClockAnswer,
  FaultAnswer,
  IncarnationAnswer,
  OkAnswer,
  ProblemAnswer,
  SimEventAnswer,
  TimelineAnswer,
  TopologyAnswer,
} from "./answers";
import {
  AlertAnswer,
  ArmFaultAnswer,
  ArmInfoAnswer,
  ArmRequestAnswer,
  HealthAnswer,
  IdentityAnswer,
  LoadBalancerAnswer,
  RevokedAnswer,
  RoleAssignmentAnswer,
} from "./armAnswers";

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

  /** One call; its answer parsed with `answer` (an unreadable one throws, naming the call). */
  private async call<S extends z.ZodType>(
    answer: S,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) {
      const problem = parseJsonWith(ProblemAnswer, text);
      if (!problem.ok) throw new FabricControlError(res.status, `HTTP ${res.status}`);
      throw new FabricControlError(res.status, problem.value.error, problem.value.issues);
    }
    const parsed = parseJsonWith(answer, text);
    if (!parsed.ok)
      throw new Error(`${method} /control${path}: unreadable answer: ${parsed.error}`);
    return parsed.value;
  }

  health = () => this.call(OkAnswer, "GET", "/health");
  clock = () => this.call(ClockAnswer, "GET", "/clock");
  advance = (seconds: number) => this.call(ClockAnswer, "POST", "/clock/advance", { seconds });
  topology = (): Promise<TopologyView> => this.call(TopologyAnswer, "GET", "/topology");
  loadTopology = (topology: TopologyInput): Promise<TopologyView> =>
    this.call(TopologyAnswer, "POST", "/topology", topology);
  addGroups = (groups: GroupSpec[]) => this.call(AddedGroupsAnswer, "POST", "/groups", { groups });
  jumpIncarnation = (group: string, by = 1) =>
    this.call(IncarnationAnswer, "POST", `/groups/${encodeURIComponent(group)}/incarnation-jump`, {
      by,
    });
  document = (group: string) =>
    this.call(ScheduledEventsDocument, "GET", `/groups/${encodeURIComponent(group)}/document`);
  events = () => this.call(z.array(SimEventAnswer), "GET", "/events");
  event = (eventId: string) =>
    this.call(SimEventAnswer, "GET", `/events/${encodeURIComponent(eventId)}`);
  schedule = (event: ScheduleEventInput) => this.call(SimEventAnswer, "POST", "/events", event);
  /** One Terminate per VM of the scale set, all with the same NotBefore. */
  deleteInstances = (
    scaleSet: string,
    vms: string[],
    options: Omit<DeleteInstancesInput, "scaleSet" | "vms"> = {},
  ) =>
    this.call(
      z.array(SimEventAnswer),
      "POST",
      `/scaleSets/${encodeURIComponent(scaleSet)}/deleteInstances`,
      { ...options, vms },
    );
  cancel = (eventId: string) =>
    this.call(SimEventAnswer, "POST", `/events/${encodeURIComponent(eventId)}/cancel`);
  startNow = (eventId: string) =>
    this.call(SimEventAnswer, "POST", `/events/${encodeURIComponent(eventId)}/start`);
  changeResources = (eventId: string, resources: string[]) =>
    this.call(SimEventAnswer, "POST", `/events/${encodeURIComponent(eventId)}/resources`, {
      resources,
    });
  faults = () => this.call(z.array(FaultAnswer), "GET", "/faults");
  injectFault = (fault: InjectFaultInput) =>
    this.call(z.array(FaultAnswer), "POST", "/faults", fault);
  clearFaults = (vm?: string) =>
    this.call(
      ClearedAnswer,
      "DELETE",
      vm === undefined ? "/faults" : `/faults?vm=${encodeURIComponent(vm)}`,
    );
  timeline = (since = 0) => this.call(TimelineAnswer, "GET", `/timeline?since=${since}`);
  reset = () => this.call(OkAnswer, "POST", "/reset");

  // The loopback Azure Resource Manager and the Azure around the VMs.

  /** Where ARM and its managed-identity token endpoint listen, and the identity's ids. */
  arm = () => this.call(ArmInfoAnswer, "GET", "/arm");
  armRequests = (since = 0) =>
    this.call(z.array(ArmRequestAnswer), "GET", `/arm/requests?since=${since}`);
  armFaults = () => this.call(z.array(ArmFaultAnswer), "GET", "/arm/faults");
  injectArmFault = (fault: ArmFaultInput) =>
    this.call(ArmFaultAnswer, "POST", "/arm/faults", fault);
  clearArmFaults = () => this.call(ClearedAnswer, "DELETE", "/arm/faults");
  /** How the Maintenance RP answers acknowledges: unsupported region, unknown events. */
  maintenance = () => this.call(MaintenanceBehaviour, "GET", "/arm/maintenance");
  setMaintenance = (behaviour: MaintenanceBehaviourInput) =>
    this.call(MaintenanceBehaviour, "PUT", "/arm/maintenance", behaviour);
  roleAssignments = () => this.call(z.array(RoleAssignmentAnswer), "GET", "/arm/roleAssignments");
  grant = (assignment: GrantInput) =>
    this.call(RoleAssignmentAnswer, "POST", "/arm/roleAssignments", assignment);
  revoke = ({ principalId, scope }: RevokeInput) =>
    this.call(
      RevokedAnswer,
      "DELETE",
      `/arm/roleAssignments?principalId=${encodeURIComponent(principalId)}${scope === undefined ? "" : `&scope=${encodeURIComponent(scope)}`}`,
    );
  identities = () => this.call(z.array(IdentityAnswer), "GET", "/arm/identities");
  registerIdentity = (identity: RegisterIdentityInput) =>
    this.call(IdentityAnswer, "POST", "/arm/identities", identity);
  loadBalancers = () => this.call(z.array(LoadBalancerAnswer), "GET", "/loadBalancers");
  setAdminState = (loadBalancer: string, pool: string, vm: string, adminState: AdminState) =>
    this.call(
      LoadBalancerAnswer,
      "POST",
      `/loadBalancers/${encodeURIComponent(loadBalancer)}/pools/${encodeURIComponent(pool)}/adminState`,
      { vm, adminState },
    );
  alerts = () => this.call(z.array(AlertAnswer), "GET", "/alerts");
  fireAlert = (rule: string, options: Omit<FireAlertInput, "rule"> = {}) =>
    this.call(AlertAnswer, "POST", `/alerts/${encodeURIComponent(rule)}/fire`, options);
  resolveAlert = (rule: string) =>
    this.call(AlertAnswer, "POST", `/alerts/${encodeURIComponent(rule)}/resolve`);
  healthEndpoints = () => this.call(z.array(HealthAnswer), "GET", "/gates");
  setHealth = (name: string, status: number) =>
    this.call(HealthAnswer, "POST", `/gates/${encodeURIComponent(name)}`, { status });

  // The Event Grid system topic's webhook subscriptions.

  eventGridSubscribe = (subscription: CreateSubscriptionInput) =>
    this.call(SubscriptionAnswer, "POST", "/eventGrid/subscriptions", subscription);
  eventGridSubscriptions = () =>
    this.call(z.array(SubscriptionAnswer), "GET", "/eventGrid/subscriptions");
  eventGridSubscription = (name: string) => this.call(SubscriptionAnswer, "GET", subPath(name));
  eventGridUnsubscribe = (name: string) => this.call(SubscriptionAnswer, "DELETE", subPath(name));
  eventGridDeliveries = (name: string) =>
    this.call(z.array(DeliveryAnswer), "GET", `${subPath(name)}/deliveries`);
  eventGridFaults = (name: string, faults: DeliveryFaults) =>
    this.call(SubscriptionAnswer, "POST", `${subPath(name)}/faults`, faults);
  eventGridPause = (name: string) =>
    this.call(SubscriptionAnswer, "POST", `${subPath(name)}/pause`);
  eventGridResume = (name: string) =>
    this.call(SubscriptionAnswer, "POST", `${subPath(name)}/resume`);
  /** Polls the subscription until it is settled (see `settled()` in-process), or throws. */
  eventGridSettled = async (name: string, timeoutMs = 10_000): Promise<SubscriptionView> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const view = await this.eventGridSubscription(name);
      if (view.settled) return view;
      if (performance.now() > deadline) {
        throw new Error(`event subscription ${name} not settled within ${timeoutMs} ms`);
      }
      await delay(20);
    }
  };
}

const subPath = (name: string) => `/eventGrid/subscriptions/${encodeURIComponent(name)}`;
