import { RESOURCE_GRAPH_API_VERSION } from "@quiesce/protocol/published";
import type { ArmAnswer } from "../errors";
import { getActionRule, putActionRule } from "../resources/actionRules";
import { listAlerts } from "../resources/alerts";
import { putApplyUpdate } from "../resources/applyUpdates";
import type { ArmCall } from "../resources/call";
import {
  acquirePolicyTokenHandler,
  getChangeRecord,
  patchChangeRecord,
  putChangeRecord,
} from "../resources/changeSafety";
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
  /** Authenticated callers of the subscription may call it without a role assignment. */
  readonly noRoleNeeded?: true;
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
/** PolicyTokens_Acquire's versions (2025-03-01 GA; 2025-11-01 adds requestDetails). */
export const POLICY_TOKEN_VERSIONS = ["2025-03-01", "2025-11-01"];
const CHANGE_RECORD_OPERATIONS = {
  // The RBAC actions follow ARM's naming; Azure has published none for this preview RP.
  GET: { action: "Microsoft.ChangeSafety/changeRecords/read", handle: getChangeRecord },
  PUT: { action: "Microsoft.ChangeSafety/changeRecords/write", handle: putChangeRecord },
  PATCH: { action: "Microsoft.ChangeSafety/changeRecords/write", handle: patchChangeRecord },
};
const CHANGE_RECORDS = [
  "providers",
  "Microsoft.ChangeSafety",
  "changeRecords",
  "{changeRecordName}",
];
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
    // A maintenance configuration's scheduled run (Update Manager): the cancel only.
    template: [
      ...RG,
      "providers",
      "Microsoft.Maintenance",
      "maintenanceConfigurations",
      "{configName}",
      "providers",
      "Microsoft.Maintenance",
      "applyUpdates",
      "{runName}",
    ],
    type: "applyUpdates",
    apiVersions: ["2023-09-01-preview", "2023-10-01-preview", "2025-11-01"],
    operations: {
      PUT: { action: "Microsoft.Maintenance/applyUpdates/write", handle: putApplyUpdate },
    },
  },
  {
    template: [...RG, "providers", "Microsoft.AlertsManagement", "actionRules", "{ruleName}"],
    type: "actionRules",
    apiVersions: ["2021-08-08"],
    operations: {
      GET: { action: "Microsoft.AlertsManagement/actionRules/read", handle: getActionRule },
      PUT: { action: "Microsoft.AlertsManagement/actionRules/write", handle: putActionRule },
    },
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
    template: [
      "subscriptions",
      "{subscriptionId}",
      "providers",
      "Microsoft.Authorization",
      "acquirePolicyToken",
    ],
    type: "acquirePolicyToken",
    apiVersions: POLICY_TOKEN_VERSIONS,
    // Any authenticated caller of the subscription: Azure has published no RBAC action for it.
    noRoleNeeded: true,
    operations: {
      POST: {
        action: "Microsoft.Authorization/acquirePolicyToken/action",
        handle: acquirePolicyTokenHandler,
      },
    },
  },
  {
    template: ["subscriptions", "{subscriptionId}", ...CHANGE_RECORDS],
    type: "changeRecords",
    apiVersions: ["2026-01-01-preview"],
    operations: CHANGE_RECORD_OPERATIONS,
  },
  {
    template: [...RG, ...CHANGE_RECORDS],
    type: "changeRecords",
    apiVersions: ["2026-01-01-preview"],
    operations: CHANGE_RECORD_OPERATIONS,
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
