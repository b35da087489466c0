export type { ArmApi, AzureSurroundings } from "./arm/api";
export type {
  ArmFaultInput,
  FireAlertInput,
  GrantInput,
  RegisterIdentityInput,
  RevokeInput,
  SetAdminStateInput,
} from "./arm/commands";
export type { ManagedIdentity } from "./arm/identity";
export type { BackendView, LoadBalancerView } from "./arm/loadBalancers";
export { type ArmAnswerSeen, armCall, armToken, errorCode } from "./arm/probe";
export type { AlertInstance, ArmFault, ArmRequest, RoleAssignment } from "./arm/types";
export * from "./attested";
export { FabricControlClient, type TopologyView } from "./control/client";
export { ManualClock, ScaledClock, type SimClock } from "./engine/clock";
export type { ClockView, Timeline } from "./engine/engine";
export {
  COMPRESSED_RETRY_DELAYS_MS,
  documentChanges,
  type Notification,
  verdict,
} from "./eventGrid/changes";
export {
  CreateSubscription,
  type CreateSubscriptionInput,
  DeliveryFaults,
} from "./eventGrid/commands";
export type { EventGridApi } from "./eventGrid/service";
export type { EventGridSubscription } from "./eventGrid/subscription";
export type {
  DeliveryCounters,
  DeliveryOutcome,
  DeliveryRecord,
  Handshake,
  SubscriptionView,
} from "./eventGrid/types";
export {
  observedNotifications,
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from "./eventGrid/webhookReceiver";
export type { HealthEndpoint } from "./health/gates";
export { instanceMetadata } from "./imds/handler";
export {
  approve,
  getInstanceMetadata,
  getScheduledEvents,
  type ImdsAnswer,
  postStartRequests,
} from "./imds/probe";
export type { KubernetesStandIn } from "./kubernetes/api";
export type { AddPodsInput, IssueTokenInput, PdbInput, PodInput } from "./kubernetes/commands";
export type { KubeRequest, NodeView, PdbView, PodView } from "./kubernetes/engine";
export { type PolicyRule, parseRbacText, RELAY_RULES } from "./kubernetes/rbac";
export type { KubeNodeCondition } from "./kubernetes/types";
export {
  AddGroups,
  ChangeResources,
  DeleteInstances,
  type DeleteInstancesInput,
  InjectFault,
  type InjectFaultInput,
  JumpIncarnation,
  ScheduleEvent,
  type ScheduleEventInput,
} from "./model/commands";
export type { ControlFailure, ControlResult } from "./model/controlResult";
export { defaultNoticeSeconds } from "./model/defaults";
export {
  renderDocument,
  rfc1123,
  SCHEDULED_EVENTS_API_VERSIONS,
  type ScheduledEventsApiVersion,
} from "./model/document";
export * as fabric from "./model/fabric";
export type * from "./model/types";
export { CONTROL_PLANE } from "./model/types";
export {
  FabricControlError,
  type FabricSimulator,
  type FabricSimulatorOptions,
  startFabricSimulator,
} from "./simulator/simulator";
export { AdminState, AlertRuleSpec, LoadBalancerSpec } from "./topology/armTopology";
export {
  approvedAutomatically,
  type ScheduledEventsPolicy,
  ScheduledEventsPolicySpec,
} from "./topology/scheduledEventsPolicy";
export { defaultTopology, generateTopology } from "./topology/topologies";
export {
  type ExpandedTopology,
  expandTopology,
  type GroupRecord,
  GroupSpec,
  Topology,
  type TopologyInput,
  type VmRecord,
} from "./topology/topology";
