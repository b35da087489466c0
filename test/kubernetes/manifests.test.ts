import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseRelaySettings, RELAY_SETTING_NAMES } from "@quiesce/relay";
import { describe, expect, it } from "vitest";
import { containerEnvironment, envFromKeys } from "./env";
import { type KubeObject, podSpecOf, renderKustomization } from "./kustomize";
import { apiProblems, daemonSetProblems, rbacProblems, STATE_DIR } from "./rules";
import { SCHEMA_VERSIONS, type SchemaVersion, schemaProblems } from "./schemas";

/**
 * The Kubernetes install (deploy/kubernetes/): every overlay rendered, every object checked
 * against Kubernetes' published schemas of each version (schemas.ts) and Quiesce's own rules
 * (rules.ts), and the relay's settings as the pod would start with them. The last block breaks
 * copies of the rendered manifests to show each check fails when it should.
 */

const KUBE = resolve(__dirname, "..", "..", "deploy", "kubernetes");
const OVERLAYS = readdirSync(join(KUBE, "overlays")).sort();
const render = (overlay: string) => renderKustomization(join(KUBE, "overlays", overlay));

const allSchemaProblems = async (objects: KubeObject[], v: SchemaVersion) =>
  (await Promise.all(objects.map((o) => schemaProblems(o, v)))).flat();

const STAND_IN = {
  secret: (name: string, key: string) => `secret ${name}/${key} (stand-in)`,
  field: (path: string) => (path === "spec.nodeName" ? "aks-nodepool1-12345678-vmss000000" : path),
};

const relayDaemonSet = (objects: KubeObject[]) =>
  objects.find((o) => o.kind === "DaemonSet") as KubeObject;
const nodeTerms = (objects: KubeObject[]) =>
  JSON.stringify(podSpecOf(relayDaemonSet(objects))?.affinity);

it("has the two overlays docs/aks.md describes", () => {
  expect(OVERLAYS).toEqual(["entra", "local"]);
});

describe.each(OVERLAYS)("overlays/%s", (overlay) => {
  const objects = render(overlay);

  it("renders the namespace, priority class, account, RBAC, settings and the DaemonSet", () => {
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "ConfigMap",
      "DaemonSet",
      "Namespace",
      "PriorityClass",
      "ServiceAccount",
    ]);
  });

  it.each(SCHEMA_VERSIONS.map((v) => [v.kubernetes, v] as const))(
    "is valid against Kubernetes %s's schemas, with no field they do not declare",
    async (_k, v) => {
      expect(await allSchemaProblems(objects, v)).toEqual([]);
    },
  );

  it("uses only APIs that every Kubernetes version AKS supports serves", () => {
    expect(apiProblems(objects)).toEqual([]);
  });

  it("runs the relay on the host network, state in a hostPath, least privilege, sized", () => {
    expect(daemonSetProblems(objects)).toEqual([]);
  });

  it("grants exactly nodes get/list/patch, nodes/status patch, pods list, pods/eviction create", () => {
    expect(rbacProblems(objects)).toEqual([]);
  });

  it("gives the relay settings it accepts, its state file in the node's state directory", () => {
    const { env, problems } = containerEnvironment(objects, "relay", STAND_IN);
    expect(problems).toEqual([]);
    const settings = parseRelaySettings(env);
    expect(settings.QUIESCE_STATE_FILE).toBe(`${STATE_DIR}/state.json`);
  });

  it("names only settings the relay knows in its ConfigMap", () => {
    const unknown = envFromKeys(objects).filter(
      (k) => !(RELAY_SETTING_NAMES as string[]).includes(k),
    );
    expect(unknown).toEqual([]);
  });
});

describe("what differs between the overlays", () => {
  it("entra: Entra tokens of a user-assigned identity, on the node pools named", () => {
    const { env } = containerEnvironment(render("entra"), "relay", STAND_IN);
    const s = parseRelaySettings(env);
    expect(s.QUIESCE_AUTH_MODE).toBe("managedIdentity");
    expect(
      s.QUIESCE_AUTH_MODE === "managedIdentity" && s.QUIESCE_MANAGED_IDENTITY_CLIENT_ID,
    ).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.QUIESCE_IMDS_URL).toBe("http://169.254.169.254");
    expect(nodeTerms(render("entra"))).toContain(
      '"key":"kubernetes.azure.com/agentpool","operator":"In"',
    );
  });

  it("local: the shared key from a Secret, each node's own simulated IMDS, any Linux node", () => {
    const { env } = containerEnvironment(render("local"), "relay", STAND_IN);
    expect(env.QUIESCE_RELAY_KEY).toBe("secret quiesce-relay-key/QUIESCE_RELAY_KEY (stand-in)");
    expect(parseRelaySettings(env).QUIESCE_AUTH_MODE).toBe("sharedKey");
    expect(env.QUIESCE_IMDS_URL).toMatch(/\/vm\/aks-nodepool1-12345678-vmss000000$/);
    expect(nodeTerms(render("local"))).not.toContain("agentpool");
  });
});

describe("the checks fail on a broken manifest", () => {
  const good = render("entra");
  /** A copy of the rendered entra overlay with the DaemonSet's pod spec changed. */
  const broken = (change: (podSpec: Record<string, unknown>, ds: KubeObject) => void) => {
    const copy = structuredClone(good);
    const ds = relayDaemonSet(copy);
    change(podSpecOf(ds) as Record<string, unknown>, ds);
    return copy;
  };
  const relay = (spec: Record<string, unknown>) =>
    (spec.containers as Record<string, unknown>[]).find((c) => c.name === "relay") as Record<
      string,
      unknown
    >;

  it.each(SCHEMA_VERSIONS.map((v) => [v.kubernetes, v] as const))(
    "Kubernetes %s's schemas refuse a wrong type, a missing required field, a misspelt field",
    async (_k, v) => {
      const wrongType = broken((spec) => {
        spec.hostNetwork = "yes";
      });
      const noName = broken((spec) => {
        delete relay(spec).name;
      });
      const misspelt = broken((spec) => {
        spec.tolerations = undefined;
        spec.toleration = [];
      });
      const badEnum = broken((spec) => {
        spec.dnsPolicy = "ClusterFirstWithHost";
      });
      expect((await allSchemaProblems(wrongType, v)).join()).toContain(
        "hostNetwork must be boolean",
      );
      expect((await allSchemaProblems(noName, v)).join()).toContain("required property name");
      expect((await allSchemaProblems(misspelt, v)).join()).toContain(
        "spec.template.spec.toleration is not a field of PodSpec",
      );
      expect((await allSchemaProblems(badEnum, v)).join()).toContain("dnsPolicy must be equal");
    },
  );

  it("refuses an API version that supported clusters no longer serve", () => {
    const old = broken((_spec, ds) => {
      ds.apiVersion = "apps/v1beta2";
    });
    expect(apiProblems(old)).toEqual([
      expect.stringContaining("apps/v1beta2 DaemonSet is not an API every AKS version serves"),
    ]);
  });

  type Obj = Record<string, unknown>;
  const daemonSetBreaks: [string, (s: Obj) => void, string][] = [
    ["off the host network", (s) => Object.assign(s, { hostNetwork: false }), "hostNetwork"],
    ["with its state not on the node", (s) => Object.assign(s, { volumes: [] }), "hostPath"],
    [
      "with a privileged relay",
      (s) => Object.assign(relay(s), { securityContext: { privileged: true } }),
      "privileged",
    ],
    [
      "without requests",
      (s) => Object.assign(relay(s), { resources: {} }),
      "resources.requests.cpu",
    ],
    ["not tolerating Spot", (s) => Object.assign(s, { tolerations: [] }), "spot"],
  ];
  it.each(daemonSetBreaks)("refuses a DaemonSet %s", (_what, change, expected) => {
    expect(daemonSetProblems(broken(change)).join("\n")).toContain(expected);
  });

  const rbacBreaks: [string, (rules: Obj[], subjects: Obj[]) => void, string][] = [
    [
      "a delete verb",
      (r) => Object.assign(r[0] as Obj, { verbs: ["get", "list", "patch", "delete"] }),
      "/nodes delete",
    ],
    [
      "secrets",
      (r) => r.push({ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }),
      "/secrets get",
    ],
    ["a wildcard", (r) => r.push({ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }), "*/* *"],
    [
      "another subject",
      (_r, s) => s.push({ kind: "Group", name: "system:authenticated" }),
      "must bind the relay's ServiceAccount",
    ],
  ];
  it.each(rbacBreaks)("refuses RBAC granting %s", (_what, change, expected) => {
    const copy = structuredClone(good);
    const role = copy.find((o) => o.kind === "ClusterRole") as KubeObject;
    const binding = copy.find((o) => o.kind === "ClusterRoleBinding") as KubeObject;
    change(role.rules as Obj[], binding.subjects as Obj[]);
    expect(rbacProblems(copy).join("\n")).toContain(expected);
  });
});
