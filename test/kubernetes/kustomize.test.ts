import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { idOf, type KubeObject, renderKustomization, strategicMerge } from "./kustomize";

/**
 * The kustomize subset in kustomize.ts: the same output as kustomize itself (`kubectl kustomize`,
 * which embeds it) wherever kubectl is installed, and a clear refusal of what it does not do.
 */

const KUBE = resolve(__dirname, "..", "..", "deploy", "kubernetes");
const kubectl = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
const hasKubectl = kubectl.status === 0;

const byId = (objects: KubeObject[]) => Object.fromEntries(objects.map((o) => [idOf(o), o]));

describe("rendering deploy/kubernetes", () => {
  if (!hasKubectl) console.log("kubectl not installed: the comparison with kustomize is skipped");

  it.skipIf(!hasKubectl).each(readdirSync(join(KUBE, "overlays")))(
    "gives what `kubectl kustomize` gives for overlays/%s, list order included",
    (overlay) => {
      const dir = join(KUBE, "overlays", overlay);
      const out = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
      expect(out.stderr).toBe("");
      const theirs = parseAllDocuments(out.stdout).map((d) => d.toJS() as KubeObject);
      expect(byId(renderKustomization(dir))).toEqual(byId(theirs));
    },
  );
});

describe("the subset", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const kustomization = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "quiesce-kustomize-"));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: '1'}\n";

  it("refuses a kustomize feature it does not implement, naming it", () => {
    const dir = kustomization({
      "kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: dev-\n",
      "cm.yaml": configMap,
    });
    expect(() => renderKustomization(dir)).toThrow("namePrefix not supported here");
  });

  it("refuses a patch for an object the resources do not have", () => {
    const dir = kustomization({
      "kustomization.yaml": "resources: [cm.yaml]\npatches: [{path: p.yaml}]\n",
      "cm.yaml": configMap,
      "p.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {y: '2'}\n",
    });
    expect(() => renderKustomization(dir)).toThrow("no ConfigMap/b to patch");
  });

  it("merges keyed lists as kustomize does: the patch's items first, then the rest", () => {
    const e = (name: string, value = "") => ({ name, value });
    const base = { env: [e("A"), e("B", "1"), e("C")] };
    const patch = { env: [e("B", "2"), e("D")] };
    expect(strategicMerge(base, patch, "")).toEqual({ env: [e("B", "2"), e("D"), e("A"), e("C")] });
  });

  it("replaces lists without a merge key, and deletes a field patched to null", () => {
    const base = { tolerations: [{ key: "a" }], keep: 1, drop: 2 };
    expect(strategicMerge(base, { tolerations: [{ key: "b" }], drop: null }, "")).toEqual({
      tolerations: [{ key: "b" }],
      keep: 1,
    });
  });
});
