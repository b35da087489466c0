export { storedHooks } from "./acknowledge";
export {
  activeOverride,
  decideApproval,
  eventsInFlight,
  matchingAutoApproveRule,
} from "./approval";
export { HANDOFF_REPORT_SECONDS } from "./cadence";
export * from "./decide";
export * from "./dict";
export { DELETES_VMS } from "./eventTypes";
export { explain } from "./explain";
export { isLive, livenessGranularityMs } from "./liveness";
export * from "./policy";
export * from "./resources";
export * from "./state";
export * from "./types";
