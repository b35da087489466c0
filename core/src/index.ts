export {
  type AttestationDecision,
  type AttestationInput,
  decideAttestation,
  PROOF_RETRY_MS,
  type ProofOutcome,
} from "./attestation/attestation";
export {
  CHANGE_RECORD_MAX_ATTEMPTS,
  type ChangeRecordAction,
  type ChangeRecordOutcome,
  changeRecordOutcome,
  claimChangeRecord,
  dueChangeRecords,
  recordChangeRecord,
} from "./lifecycle/changeRecords";
export { needsClusterEvents } from "./lifecycle/clusterEvents";
export { isEnded } from "./lifecycle/evaluate";
export {
  type AcknowledgeRefusal,
  type AcknowledgeRefusalKind,
  acknowledgeRefusal,
} from "./model/acknowledgeRefusal";
export {
  AttestationBinding,
  AttestationProblem,
  MemberAttestation,
  UnboundReports,
} from "./model/attestationState";
export {
  CHANGE_RECORD_OUTCOMES,
  CHANGE_RECORD_STEPS,
  ChangeRecordState,
} from "./model/changeRecordState";
export { advisoryNote, DELETES_VMS, isAdvisoryEvent } from "./model/eventTypes";
export { PUBLISHED_RANK, PublishedView } from "./model/publishedView";
export {
  ADMIN_STATES,
  type AdminState,
  ApprovalLease,
  ApprovalRule,
  ArmFailure,
  BackendMembership,
  type ClusterState,
  CONTROL_PLANE,
  ControlPlaneRecord,
  EventRecord,
  emptyClusterState,
  FailingGate,
  GateOverride,
  LIVENESS_GRANULARITY_SHARE,
  LoadBalancerStep,
  Member,
  memberKey,
  OperatorOverride,
  Readiness,
  ResourceDispute,
  relayHoldsLease,
  type Transition,
  type UnreadableEvent,
} from "./model/state";
export type {
  Blocker,
  Decision,
  Explanation,
  OperatorAction,
  Reply,
  ReportDecision,
} from "./model/types";
export { applyAcknowledgeOutcome } from "./rounds/acknowledgeOutcome";
export {
  type AgentlessChange,
  type AgentlessHookKind,
  type AgentlessRun,
  CLAIM_GRACE_MS,
  claimAgentlessHook,
  dueAgentlessHooks,
  holdsAgentlessClaim,
  recordAgentlessHook,
} from "./rounds/agentless";
export {
  applyOperatorAction,
  OperatorActionError,
  overrideReplaced,
  type ReplacedOverride,
} from "./rounds/operator";
export { applyPublished } from "./rounds/published";
export { applyPublishedBatch } from "./rounds/publishedBatch";
export { applyReport, type ReportInputs } from "./rounds/report";
export {
  decideRound,
  type ReadSet,
  type RoundInput,
  type RoundKind,
  type RoundResult,
  type RoundView,
  readSet,
  writesAnything,
} from "./rounds/round";
export { storedHooks } from "./rounds/storedHooks";
export { DEFAULT_EVENT_RETENTION_MS, tick } from "./rounds/tick";
export { agentlessIdentity, agentlessVms, isAgentless } from "./rules/agentlessVms";
export {
  activeOverride,
  decideApproval,
  eventsInFlight,
  IN_FLIGHT,
  matchingAutoApproveRule,
} from "./rules/approval";
export {
  BYSTANDER_REPORT_SECONDS,
  bystanderInterval,
  HANDOFF_REPORT_SECONDS,
} from "./rules/cadence";
export {
  type AcknowledgeOutcome,
  type ControlPlaneChange,
  claimAcknowledge,
  controlPlaneLease,
  controlPlaneLeaseExpired,
  controlPlaneWanted,
  dueAcknowledges,
  recordAcknowledge,
} from "./rules/controlPlane";
export {
  checkGates,
  countsEveryMember,
  type EvaluationInputs,
  type GateCheck,
  type GateVerdict,
  gatesPass,
  groupOf,
  hasGates,
  liveRelaysVerdicts,
  NO_GATES,
  policyGates,
} from "./rules/gates";
export {
  type CancelDecision,
  configurationName,
  conflictingEvents,
  decidePatchRunCancel,
  guestPatchingVerdict,
  inMaintenance,
  type PatchRunView,
  runHolds,
  runName,
} from "./rules/guestPatching";
export { isLive, isLiveForEvent, livenessGranularityMs, livenessTimeoutMs } from "./rules/liveness";
export {
  dueLoadBalancerActions,
  type LoadBalancerAction,
  loadBalancerBlocker,
  recordLoadBalancerStep,
  restoresOwed,
  settleLoadBalancerSteps,
} from "./rules/loadBalancer";
export {
  decideWindow,
  describeWindow,
  isDeferred,
  type WindowDecision,
  type WindowEvent,
} from "./rules/maintenanceWindow";
export {
  applyResourceView,
  guardOf,
  type ResourceChange,
  type ResourceGuard,
} from "./rules/resources";
export { reportScope } from "./rules/scope";
export { type StartedFirstCause, startedFirstCause } from "./rules/startedFirst";
export { changesNothing } from "./rules/unchanged";
export { deferredUntil, drainStartAt, eventWindow, windowNote } from "./rules/windowDeferral";
export {
  type Coverage,
  type CoveredGroupKind,
  coverage,
  type GroupCoverage,
  type SilentMember,
  UNBOUND_ALERT_AFTER_MS,
  type UnattestedMember,
} from "./views/coverage";
export { explain } from "./views/explain";
