import { objectBody, okValue, type Route } from "./route";

/**
 * The control routes of the Kubernetes stand-in: place pods and PodDisruptionBudgets, see the
 * nodes (cordoned? which labels and annotations?), cordon as an operator would, read the
 * request log (which identity did what), issue other identities' tokens.
 */

const since = (query: URLSearchParams) => {
  const n = Number(query.get("since") ?? "0");
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

export const kubernetesRoutes: Route[] = [
  {
    method: "GET",
    pattern: /^\/kubernetes$/,
    run: ({ kubernetesInfo }) => okValue(kubernetesInfo()),
  },
  { method: "GET", pattern: /^\/kubernetes\/nodes$/, run: ({ k8s }) => okValue(k8s.nodes()) },
  {
    method: "POST",
    pattern: /^\/kubernetes\/nodes\/([^/]+)\/(cordon|uncordon)$/,
    run: ({ k8s, params }) => k8s.setUnschedulable({ node: params[0] }, params[1] === "cordon"),
  },
  { method: "GET", pattern: /^\/kubernetes\/pods$/, run: ({ k8s }) => okValue(k8s.pods()) },
  {
    method: "POST",
    pattern: /^\/kubernetes\/pods$/,
    status: 201,
    run: async ({ k8s, body }) => k8s.addPods(await body()),
  },
  { method: "GET", pattern: /^\/kubernetes\/pdbs$/, run: ({ k8s }) => okValue(k8s.pdbs()) },
  {
    method: "POST",
    pattern: /^\/kubernetes\/pdbs$/,
    status: 201,
    run: async ({ k8s, body }) => k8s.addPdb(await objectBody(body)),
  },
  {
    method: "GET",
    pattern: /^\/kubernetes\/requests$/,
    run: ({ k8s, query }) => okValue(k8s.requests(since(query))),
  },
  {
    method: "POST",
    pattern: /^\/kubernetes\/tokens$/,
    status: 201,
    run: async ({ k8s, body }) => k8s.issueToken(await body()),
  },
];
