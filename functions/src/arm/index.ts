/**
 * The coordinator's I/O shell to Azure's control plane: one ARM client and the operations built
 * on it. Nothing here decides anything; the pipeline and controlPlane code call it.
 */
export { acknowledgeScheduledEvent, MAINTENANCE_API_VERSION } from "./acknowledge";
export { createPooledAgent } from "./agent";
export { ALERTS_API_VERSION, alertRuleFiring } from "./alerts";
export type { ArmError } from "./armError";
export {
  type ArmClient,
  type ArmClientOptions,
  type ArmRequest,
  type ArmRequestEvent,
  type ArmResponse,
  createArmClient,
  DEFAULT_ARM_ENDPOINT,
  MAX_ARM_BODY_BYTES,
} from "./client";
export { callHook, type HookCallResult, hookUrl } from "./hookCall";
export { type HttpProbe, type ProbeResult, probeHttp } from "./httpProbe";
export {
  type AdminState,
  type AdminStateChange,
  type BackendMembership,
  backendMemberships,
  NETWORK_API_VERSION,
  type ObservedAdminState,
  readAdminState,
  SCALE_SET_NIC_API_VERSION,
  setAdminState,
} from "./loadBalancer";
export { parseResourceId, type ResourceId } from "./resourceId";
export {
  type AcknowledgeScope,
  createScopeResolver,
  resolveScope,
  type ScopeResolver,
  scopePath,
  type VmIdentity,
} from "./scope";
export type { ArmCredential } from "./token";
export { COMPUTE_API_VERSION } from "./virtualMachine";
