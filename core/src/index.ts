export { storedHooks } from "./acknowledge";
export * from "./acknowledgeRefusal";
export * from "./agentless";
export { agentlessIdentity, agentlessVms, isAgentless } from "./agentlessVms";
export {
  activeOverride,
  decideApproval,
  eventsInFlight,
  IN_FLIGHT,
  matchingAutoApproveRule,
} from "./approval";
export * from "./attestation";
export * from "./attestationState";
export { BYSTANDER_REPORT_SECONDS, bystanderInterval, HANDOFF_REPORT_SECONDS } from "./cadence";
export { needsClusterEvents } from "./clusterEvents";
export * from "./controlPlane";
export * from "./controlPlaneOutcome";
export * from "./coverage";
export { isEnded } from "./evaluate";
export { DELETES_VMS } from "./eventTypes";
export { explain } from "./explain";
export * from "./gates";
export { isLive, isLiveForEvent, livenessGranularityMs, livenessTimeoutMs } from "./liveness";
export * from "./loadBalancer";
export * from "./operator";
export { applyPublished } from "./published";
export { applyPublishedBatch } from "./publishedBatch";
export * from "./publishedView";
export * from "./report";
export * from "./resources";
export * from "./scope";
export { type StartedFirstCause, startedFirstCause } from "./startedFirst";
export * from "./state";
export * from "./tick";
export * from "./types";
export { changesNothing } from "./unchanged";
