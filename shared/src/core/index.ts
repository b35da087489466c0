export {
  activeOverride,
  decideApproval,
  eventsInFlight,
  matchingAutoApproveRule,
} from "./approval";
export * from "./decide";
export { explain } from "./explain";
export { isLive, livenessGranularityMs } from "./liveness";
export * from "./policy";
export * from "./state";
export * from "./types";
