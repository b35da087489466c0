import { loadBalancerViews, setAdminState } from "../arm/loadBalancers";
import { refused } from "../model/controlResult";
import { objectBody, okValue, type Route } from "./route";

/**
 * The control routes of the loopback ARM and its neighbours: the request log, injected ARM
 * faults, role assignments, managed identities, load balancers (admin state, simulated traffic),
 * alerts, and the health endpoints of HTTP gates.
 */

const since = (query: URLSearchParams) => {
  const n = Number(query.get("since") ?? "0");
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

export const armRoutes: Route[] = [
  { method: "GET", pattern: /^\/arm$/, run: ({ armInfo }) => okValue(armInfo()) },
  {
    method: "GET",
    pattern: /^\/arm\/requests$/,
    run: ({ arm, query }) => {
      const s = since(query);
      return s === undefined
        ? refused(400, "since must be a non-negative integer (a request seq)")
        : okValue(arm.requests(s));
    },
  },
  { method: "GET", pattern: /^\/arm\/faults$/, run: ({ arm }) => okValue(arm.faults()) },
  {
    method: "POST",
    pattern: /^\/arm\/faults$/,
    status: 201,
    run: async ({ arm, body }) => arm.injectFault(await body()),
  },
  {
    method: "DELETE",
    pattern: /^\/arm\/faults$/,
    run: ({ arm }) => okValue({ cleared: arm.clearFaults() }),
  },
  { method: "GET", pattern: /^\/arm\/maintenance$/, run: ({ arm }) => okValue(arm.maintenance()) },
  {
    method: "PUT",
    pattern: /^\/arm\/maintenance$/,
    run: async ({ arm, body }) => arm.setMaintenance(await body()),
  },
  {
    method: "GET",
    pattern: /^\/arm\/changeSafety$/,
    run: ({ arm }) => {
      const s = arm.changeSafety();
      // The tokens stay in-process (ArmApi.changeSafety): a control answer is no place for them.
      return okValue({
        policy: s.policy,
        audited: s.audited,
        guarded: s.guarded,
        records: Object.values(s.records),
      });
    },
  },
  {
    method: "PUT",
    pattern: /^\/arm\/changeSafety$/,
    run: async ({ arm, body }) => arm.setChangeSafety(await body()),
  },
  {
    method: "GET",
    pattern: /^\/arm\/roleAssignments$/,
    run: ({ arm }) => okValue(arm.roleAssignments()),
  },
  {
    method: "POST",
    pattern: /^\/arm\/roleAssignments$/,
    status: 201,
    run: async ({ arm, body }) => arm.grant(await body()),
  },
  {
    method: "DELETE",
    pattern: /^\/arm\/roleAssignments$/,
    run: ({ arm, query }) => {
      const scope = query.get("scope");
      const r = arm.revoke({
        principalId: query.get("principalId") ?? "",
        ...(scope !== null ? { scope } : {}),
      });
      return r.ok ? okValue({ revoked: r.value }) : r;
    },
  },
  {
    method: "GET",
    pattern: /^\/arm\/identities$/,
    run: ({ arm }) => okValue(arm.identity.list()),
  },
  {
    method: "POST",
    pattern: /^\/arm\/identities$/,
    status: 201,
    run: async ({ arm, body }) => arm.identity.register(await body()),
  },
  {
    method: "GET",
    pattern: /^\/loadBalancers$/,
    run: ({ arm }) => okValue(loadBalancerViews(arm)),
  },
  {
    method: "POST",
    pattern: /^\/loadBalancers\/([^/]+)\/pools\/([^/]+)\/adminState$/,
    run: async ({ arm, params, body }) =>
      setAdminState(arm, { ...(await objectBody(body)), loadBalancer: params[0], pool: params[1] }),
  },
  { method: "GET", pattern: /^\/alerts$/, run: ({ arm }) => okValue(arm.alerts()) },
  {
    method: "POST",
    pattern: /^\/alerts\/([^/]+)\/fire$/,
    run: async ({ arm, params, body }) =>
      arm.fireAlert({ ...(await objectBody(body)), rule: params[0] }),
  },
  {
    method: "POST",
    pattern: /^\/alerts\/([^/]+)\/resolve$/,
    run: ({ arm, params }) => arm.resolveAlert({ rule: params[0] }),
  },
  { method: "GET", pattern: /^\/gates$/, run: ({ health }) => okValue(health.list()) },
  {
    method: "POST",
    pattern: /^\/gates\/([^/]+)$/,
    run: async ({ health, params, body }) =>
      health.set({ ...(await objectBody(body)), name: params[0] }),
  },
];
