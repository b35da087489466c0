import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../kubernetes/kustomize";
import { schemaProblems as modelProblems, SCHEMA_VERSIONS } from "../kubernetes/schemas";
import { type OpenApiExcerpt, schemaProblems } from "./openapi";

/**
 * The Kubernetes API's contract as its owners publish it (fixtures/kubernetes/SOURCES.md), read
 * once for test/contracts/kubernetes.test.ts: the OpenAPI excerpt, example objects, and the status
 * codes the documentation gives for evictions and for each Status reason.
 */

const dir = join(__dirname, "fixtures", "kubernetes");
export const text = (name: string) => readFileSync(join(dir, name), "utf8");
// biome-ignore lint/suspicious/noExplicitAny: fixtures are inspected field by field
export const json = (name: string): any => JSON.parse(text(name));

export const EVICTION_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/eviction";
export const spec = json("openapi-v3-api-v1.excerpt.json") as OpenApiExcerpt & {
  paths: Record<string, { post: { responses: Record<string, unknown> } }>;
};
export const SCHEMA = {
  node: "io.k8s.api.core.v1.Node",
  nodeList: "io.k8s.api.core.v1.NodeList",
  pod: "io.k8s.api.core.v1.Pod",
  podList: "io.k8s.api.core.v1.PodList",
  eviction: "io.k8s.api.policy.v1.Eviction",
  status: "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
} as const;

export const nodeExample = json("testdata-HEAD.core.v1.Node.json");
export const podExample = json("testdata-HEAD.core.v1.Pod.metadata-excerpt.json");
export const status404 = json("api-conventions.status-404.json");
export const evictionRequest = json("api-eviction.eviction-request.json");

/** The eviction answers the API-initiated Eviction page lists: `200 OK`, `429 …`, `500 …`. */
export const evictionCodes = new Map(
  [...text("website.api-eviction.md").matchAll(/^\* `(\d{3}) ([^`]+)`: (.+)$/gm)].map((m) => [
    Number(m[1]),
    `${m[2]}: ${m[3]}`,
  ]),
);

/** The 2xx the OpenAPI spec declares for POST …/eviction. */
export const evictionSuccessCodes = Object.keys(spec.paths[EVICTION_PATH]?.post.responses ?? {})
  .filter((c) => c.startsWith("2"))
  .map(Number);

/** Status reason -> HTTP code, from api-conventions' "Response Status Kind" list. */
export const reasonCodes = new Map(
  [
    ...text("community.api-conventions.response-status-kind.excerpt.md").matchAll(
      /^\* `(\w+)`\n[\s\S]*?(?:Http|HTTP) status code: `(\d{3})/gm,
    ),
  ].map((m) => [m[1] as string, Number(m[2])]),
);

/** Problems of a value under the vendored excerpt and, for objects, both kubernetes-models versions. */
export async function contractProblems(
  name: (typeof SCHEMA)[keyof typeof SCHEMA],
  value: unknown,
  typed?: { apiVersion: string; kind: string },
): Promise<string[]> {
  const problems = schemaProblems(spec, name, value);
  if (typed)
    for (const v of SCHEMA_VERSIONS)
      problems.push(...(await modelProblems({ ...typed, ...(value as object) } as KubeObject, v)));
  return problems;
}

/**
 * Bodies no owner publishes verbatim, composed from the Status schema's fields and the reasons
 * api-conventions gives (the test checks each against the schema before serving it): a list
 * around an example object, a Conflict, and the eviction's PDB refusal as kube-apiserver words it
 * (pkg/registry/core/pod/storage/eviction.go, read, not vendored: it is code).
 */
const failure = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure" } as const;
export const composed = {
  list: (kind: string, items: unknown[]) => ({
    kind,
    apiVersion: "v1",
    metadata: { resourceVersion: "1" },
    items,
  }),
  conflict: {
    ...failure,
    message: "the object has been modified",
    reason: "Conflict",
    details: { name: "nameValue", kind: "nodes" },
    code: 409,
  },
  tooMany: {
    ...failure,
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    reason: "TooManyRequests",
    details: {
      causes: [
        {
          reason: "DisruptionBudget",
          message: "The disruption budget web needs 2 healthy pods and has 2 currently",
        },
      ],
    },
    code: 429,
  },
};

/** KEP-5683 (fixtures/kubernetes/SOURCES.md): the lifecycle conditions as the KEP words them. */
export const kep5683 = text("enhancements.kep-5683-lifecycle-conditions.excerpt.md");
/** The condition types its Go block adds (`DrainInProgress NodeConditionType = "DrainInProgress"`). */
export const kepConditionTypes = [
  ...kep5683.matchAll(/^\s+\w+ NodeConditionType = "(\w+)"$/gm),
].map((m) => m[1] as string);
/** Its example reasons (`- \`DrainCompleted\`: the actor managing drain ...`). */
export const kepExampleReasons = [...kep5683.matchAll(/^- `([A-Z]\w+)`: /gm)].map(
  (m) => m[1] as string,
);
/** What the KEP says a disabled gate changes. */
export const kepGateDisabled = /When the feature gate is disabled:\n\n- (.+)\n/.exec(kep5683)?.[1];

/** core/v1 types.go: NodeStatus.conditions' strategic-merge key, and NodeCondition's JSON fields. */
export const typesGo = text("kubernetes.core-v1-types.node-conditions.excerpt.go.txt");
export const conditionsMergeKey =
  /Conditions \[\]NodeCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"(\w+)"/.exec(
    typesGo,
  )?.[1];
export const nodeConditionFields = [
  ...(/type NodeCondition struct \{([\s\S]*?)\n\}/.exec(typesGo)?.[1] ?? "").matchAll(
    /`json:"(\w+)/g,
  ),
].map((m) => m[1] as string);
