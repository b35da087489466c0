import { RESOURCE_GRAPH_API_VERSION } from "@quiesce/protocol/published";
import type { ArmAnswer } from "../errors";
import { listAlerts } from "../resources/alerts";
import type { ArmCall } from "../resources/call";
import { getScaleSetVm, getVm } from "../resources/compute";
import { acknowledgeList, acknowledgeOne, SCOPE_TYPES } from "../resources/maintenance";
import { getNic, getPool, getScaleSetNic, putPool } from "../resources/network";
import { RESOURCE_GRAPH_ACTION, resourceGraphQuery } from "../resources/resourceGraph";

/**
 * The ARM operations the simulator serves, with the api-versions each accepts and the RBAC action
 * each needs. Paths are matched segment by segment, case-insensitively (ARM treats provider
 * namespaces, resource types and names without regard to case); `{x}` captures a segment.
 */

export interface ArmOperation {
  readonly action: string;
  readonly handle: (call: ArmCall) => ArmAnswer | Promise<ArmAnswer>;
}

export interface ArmRoute {
  readonly template: readonly string[];
  /** The resource type as ARM names it in NoRegisteredProviderFound. */
  readonly type: string;
  readonly apiVersions: readonly string[];
  readonly operations: Readonly<Partial<Record<string, ArmOperation>>>;
  /** Extra conditions on the captured segments. */
  readonly accepts?: (params: Readonly<Record<string, string>>) => boolean;
  /**
   * A provider path with no scope in it (`/providers/…`): ARM's subscription and role checks of
   * the path do not apply, the handler decides what the caller may see.
   */
  readonly scopeless?: true;
}

const RG = ["subscriptions", "{subscriptionId}", "resourceGroups", "{resourceGroupName}"];
const COMPUTE = [...RG, "providers", "Microsoft.Compute"];
const NETWORK = [...RG, "providers", "Microsoft.Network"];
const SCALE_SET_VM = [
  ...COMPUTE,
  "virtualMachineScaleSets",
  "{scaleSet}",
  "virtualMachines",
  "{instanceId}",
];
const MAINTENANCE = [
  ...COMPUTE,
  "{scopeType}",
  "{scopeName}",
  "providers",
  "Microsoft.Maintenance",
  "scheduledevents",
];

/** Compute's GA versions that return the VM shape the simulator renders. */
const COMPUTE_VERSIONS = ["2023-09-01", "2024-03-01", "2024-07-01", "2024-11-01", "2025-04-01"];
/** Network versions with backend-address admin state. */
const NETWORK_VERSIONS = ["2023-11-01", "2024-01-01", "2024-03-01", "2024-05-01", "2024-07-01"];
/**
 * The Maintenance RP's api-versions with acknowledge (azure-rest-api-specs: the previews and the
 * GA 2025-11-01; docs/control-plane.md "Which api-version").
 */
const ACK_VERSIONS = [
  "2023-10-01-preview",
  "2025-10-01-preview",
  "2025-11-01",
  "2026-02-01-preview",
  "2026-06-01-preview",
];

const ACK_ACTION = "Microsoft.Maintenance/scheduledevents/acknowledge/action";
const isScopeType = (p: Readonly<Record<string, string>>) =>
  SCOPE_TYPES.some((t) => t.toLowerCase() === p.scopeType?.toLowerCase());

export const ROUTES: readonly ArmRoute[] = [
  {
    template: [...COMPUTE, "virtualMachines", "{vmName}"],
    type: "virtualMachines",
    apiVersions: COMPUTE_VERSIONS,
    operations: { GET: { action: "Microsoft.Compute/virtualMachines/read", handle: getVm } },
  },
  {
    template: SCALE_SET_VM,
    type: "virtualMachineScaleSets/virtualMachines",
    apiVersions: COMPUTE_VERSIONS,
    operations: {
      GET: {
        action: "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read",
        handle: getScaleSetVm,
      },
    },
  },
  {
    // NetworkInterfaces_GetVirtualMachineScaleSetNetworkInterface: Azure's specs pin it to 2018-10-01.
    template: [...SCALE_SET_VM, "networkInterfaces", "{nicName}"],
    type: "virtualMachineScaleSets/virtualMachines/networkInterfaces",
    apiVersions: ["2018-10-01"],
    operations: {
      GET: {
        action: "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces/read",
        handle: getScaleSetNic,
      },
    },
  },
  {
    template: [...NETWORK, "networkInterfaces", "{nicName}"],
    type: "networkInterfaces",
    apiVersions: NETWORK_VERSIONS,
    operations: { GET: { action: "Microsoft.Network/networkInterfaces/read", handle: getNic } },
  },
  {
    template: [...NETWORK, "loadBalancers", "{lbName}", "backendAddressPools", "{poolName}"],
    type: "loadBalancers/backendAddressPools",
    apiVersions: NETWORK_VERSIONS,
    operations: {
      GET: { action: "Microsoft.Network/loadBalancers/backendAddressPools/read", handle: getPool },
      PUT: { action: "Microsoft.Network/loadBalancers/backendAddressPools/write", handle: putPool },
    },
  },
  {
    template: [...MAINTENANCE, "{eventId}", "acknowledge"],
    type: "scheduledevents",
    apiVersions: ACK_VERSIONS,
    accepts: isScopeType,
    operations: { POST: { action: ACK_ACTION, handle: acknowledgeOne } },
  },
  {
    // The list form is new in 2025-10-01-preview.
    template: MAINTENANCE,
    type: "scheduledevents",
    apiVersions: ACK_VERSIONS.filter((v) => v !== "2023-10-01-preview"),
    accepts: isScopeType,
    operations: { POST: { action: ACK_ACTION, handle: acknowledgeList } },
  },
  {
    template: [
      "subscriptions",
      "{subscriptionId}",
      "providers",
      "Microsoft.AlertsManagement",
      "alerts",
    ],
    type: "alerts",
    apiVersions: ["2019-05-05-preview"],
    operations: { GET: { action: "Microsoft.AlertsManagement/alerts/read", handle: listAlerts } },
  },
  {
    // Only the version the product's page schema is written for.
    template: ["providers", "Microsoft.ResourceGraph", "resources"],
    type: "resources",
    apiVersions: [RESOURCE_GRAPH_API_VERSION],
    scopeless: true,
    operations: { POST: { action: RESOURCE_GRAPH_ACTION, handle: resourceGraphQuery() } },
  },
];

/** The route a path names, with its parameters; undefined when ARM would not know the path. */
export function matchRoute(
  segments: readonly string[],
): { route: ArmRoute; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    if (route.template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const hit = route.template.every((t, i) => {
      const s = segments[i] as string;
      if (t.startsWith("{")) {
        params[t.slice(1, -1)] = s;
        return s !== "";
      }
      return t.toLowerCase() === s.toLowerCase();
    });
    if (hit && (route.accepts?.(params) ?? true)) return { route, params };
  }
  return undefined;
}
