import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * The small subset of kustomize that deploy/kubernetes/ uses, so the manifests can be rendered and
 * checked without a kustomize binary: `resources` (files, or folders with a kustomization.yaml),
 * `patches` given by `path` (strategic merge patches naming their target by kind and name) and
 * `images`. Anything else is refused, so a manifest using more fails here until this grows.
 * Where `kubectl` is installed, kustomize.test.ts checks the output equals `kubectl kustomize`.
 */

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & Record<string, unknown>;
} & Record<string, unknown>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

const KEYS = new Set(["apiVersion", "kind", "resources", "patches", "images"]);

/**
 * Lists whose items strategic merge patches merge by a key, as Kubernetes' API types declare it
 * (patchMergeKey) for the fields these manifests patch; every other list is replaced whole.
 */
const MERGE_KEYS: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  env: "name",
  volumes: "name",
  volumeMounts: "mountPath",
  ports: "containerPort",
};

export const idOf = (o: KubeObject): string =>
  `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;

const isMap = (v: unknown): v is JsonMap =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every YAML document of a file, each a Kubernetes object with a kind and a name. */
export function readObjects(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, "utf8")).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
    const o = doc.toJS() as unknown;
    if (o === null || o === undefined) return [];
    if (!isMap(o) || typeof o.kind !== "string" || typeof o.apiVersion !== "string")
      throw new Error(`${file}: a document without apiVersion and kind`);
    if (!isMap(o.metadata) || typeof o.metadata.name !== "string")
      throw new Error(`${file}: ${o.kind} without metadata.name`);
    return [o as unknown as KubeObject];
  });
}

/** Render the kustomization in `dir` as `kubectl kustomize dir` would (for the subset above). */
export function renderKustomization(dir: string): KubeObject[] {
  const [k] = readObjectsLoose(join(dir, "kustomization.yaml"));
  if (!k) throw new Error(`${dir}: empty kustomization.yaml`);
  const unsupported = Object.keys(k).filter((key) => !KEYS.has(key));
  if (unsupported.length > 0)
    throw new Error(`${dir}/kustomization.yaml: ${unsupported.join(", ")} not supported here`);

  const objects: KubeObject[] = [];
  for (const r of strings(k.resources, `${dir}: resources`)) {
    const path = resolve(dir, r);
    for (const o of statSync(path).isDirectory() ? renderKustomization(path) : readObjects(path)) {
      if (objects.some((x) => idOf(x) === idOf(o)))
        throw new Error(`${dir}: ${idOf(o)} is listed twice`);
      objects.push(o);
    }
  }
  for (const p of list(k.patches, `${dir}: patches`)) {
    if (!isMap(p) || typeof p.path !== "string" || Object.keys(p).length !== 1)
      throw new Error(`${dir}: a patch is supported only as { path: file }`);
    for (const patch of readObjects(resolve(dir, p.path))) {
      const at = objects.findIndex((o) => idOf(o) === idOf(patch));
      if (at < 0) throw new Error(`${dir}/${p.path}: no ${idOf(patch)} to patch`);
      const merged = strategicMerge(objects[at] as unknown as Json, patch as unknown as Json, "");
      objects[at] = merged as unknown as KubeObject;
    }
  }
  for (const image of list(k.images, `${dir}: images`)) setImage(objects, image, dir);
  return objects;
}

/** A strategic merge patch, for maps and the keyed lists above; `null` deletes a field. */
export function strategicMerge(base: Json | undefined, patch: Json, field: string): Json {
  if (isMap(patch)) {
    const dollar = Object.keys(patch).find((key) => key.startsWith("$"));
    if (dollar) throw new Error(`${field}: patch directive ${dollar} not supported here`);
    const out: JsonMap = isMap(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = strategicMerge(out[key], value, key);
    }
    return out;
  }
  const key = MERGE_KEYS[field];
  if (Array.isArray(patch) && Array.isArray(base) && key) {
    // kustomize's order: the patch's items (merged with their originals), then the originals
    // the patch does not name.
    const named = (item: Json) => (isMap(item) ? item[key] : undefined);
    const merged = patch.map((item) => {
      const original = base.find((b) => named(b) !== undefined && named(b) === named(item));
      return strategicMerge(original, item, "");
    });
    const rest = base.filter((b) => !patch.some((item) => named(item) === named(b)));
    return [...merged, ...rest];
  }
  return structuredClone(patch);
}

/** kustomize's images transformer: `name` matches an image without its tag or digest. */
function setImage(objects: KubeObject[], image: Json, dir: string): void {
  if (!isMap(image) || typeof image.name !== "string")
    throw new Error(`${dir}: an image needs a name`);
  const extra = Object.keys(image).filter((key) => !["name", "newName", "newTag"].includes(key));
  if (extra.length > 0) throw new Error(`${dir}: images ${extra.join(", ")} not supported here`);
  for (const c of podContainers(objects)) {
    if (typeof c.image !== "string") continue;
    const [name, tag] = splitImage(c.image);
    if (name !== image.name) continue;
    const newName = typeof image.newName === "string" ? image.newName : name;
    const newTag = image.newTag === undefined ? tag : String(image.newTag);
    c.image = newTag === undefined ? newName : `${newName}:${newTag}`;
  }
}

function splitImage(image: string): [string, string | undefined] {
  const at = image.lastIndexOf(":");
  return at > image.lastIndexOf("/")
    ? [image.slice(0, at), image.slice(at + 1)]
    : [image, undefined];
}

/** Every container and init container of every pod template (or pod) among the objects. */
export function podContainers(objects: KubeObject[]): JsonMap[] {
  return objects.flatMap((o) => {
    const spec = podSpecOf(o);
    if (!spec) return [];
    return [
      ...list(spec.initContainers, "initContainers"),
      ...list(spec.containers, "containers"),
    ].filter(isMap);
  });
}

export function podSpecOf(o: KubeObject): JsonMap | undefined {
  const spec = o.spec as Json | undefined;
  if (o.kind === "Pod") return isMap(spec) ? spec : undefined;
  const template = isMap(spec) ? spec.template : undefined;
  return isMap(template) && isMap(template.spec) ? template.spec : undefined;
}

function readObjectsLoose(file: string): JsonMap[] {
  return parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS() as JsonMap);
}

function list(value: Json | undefined, what: string): Json[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${what} must be a list`);
  return value;
}

function strings(value: Json | undefined, what: string): string[] {
  return list(value, what).map((v) => {
    if (typeof v !== "string") throw new Error(`${what} must be a list of paths`);
    return v;
  });
}
