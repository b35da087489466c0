import { type KubeObject, podSpecOf } from "./kustomize";

type Map = Record<string, unknown>;
const asMap = (v: unknown): Map => (typeof v === "object" && v !== null ? (v as Map) : {});
const asList = (v: unknown): Map[] => (Array.isArray(v) ? v.map(asMap) : []);

/**
 * The environment the relay container would start with, as the kubelet builds it: `envFrom`
 * ConfigMaps first, then `env` in order (later names win), `$(NAME)` expanded from what is
 * already defined. Secrets and the downward API are stood in for by `stand`, since they only
 * exist in a cluster. A reference to a ConfigMap the install does not render is a problem.
 */
export function containerEnvironment(
  objects: KubeObject[],
  container: string,
  stand: { secret: (name: string, key: string) => string; field: (path: string) => string },
): { env: Record<string, string>; problems: string[] } {
  const problems: string[] = [];
  const ds = objects.find((o) => o.kind === "DaemonSet");
  const c = asList(ds ? podSpecOf(ds)?.containers : undefined).find((x) => x.name === container);
  if (!ds || !c) return { env: {}, problems: [`no DaemonSet container ${container}`] };
  const ns = ds.metadata.namespace;
  const configMap = (name: unknown) =>
    objects.find(
      (o) => o.kind === "ConfigMap" && o.metadata.name === name && o.metadata.namespace === ns,
    );

  const env: Record<string, string> = {};
  for (const from of asList(c.envFrom)) {
    const ref = asMap(from.configMapRef);
    const cm = configMap(ref.name);
    if (!cm) problems.push(`envFrom names ConfigMap ${String(ref.name)}, which is not rendered`);
    else for (const [k, v] of Object.entries(asMap(cm.data))) env[k] = String(v);
  }
  for (const e of asList(c.env)) {
    const name = String(e.name);
    if (typeof e.value === "string") {
      env[name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, v: string) => {
        if (env[v] !== undefined) return env[v];
        problems.push(`${name} refers to $(${v}), which is not defined before it`);
        return whole;
      });
      continue;
    }
    const from = asMap(e.valueFrom);
    const secret = asMap(from.secretKeyRef);
    const cmKey = asMap(from.configMapKeyRef);
    const field = asMap(from.fieldRef);
    if (secret.name) env[name] = stand.secret(String(secret.name), String(secret.key));
    else if (field.fieldPath) env[name] = stand.field(String(field.fieldPath));
    else if (cmKey.name) {
      const value = asMap(configMap(cmKey.name)?.data)[String(cmKey.key)];
      if (value === undefined) problems.push(`${name}: ConfigMap key ${String(cmKey.key)} missing`);
      else env[name] = String(value);
    } else problems.push(`${name} has neither a value nor a supported valueFrom`);
  }
  return { env, problems };
}

/** The keys of every ConfigMap the DaemonSet's containers load with envFrom. */
export function envFromKeys(objects: KubeObject[]): string[] {
  const ds = objects.find((o) => o.kind === "DaemonSet");
  const names = new Set(
    asList(ds ? podSpecOf(ds)?.containers : undefined).flatMap((c) =>
      asList(c.envFrom).map((f) => asMap(f.configMapRef).name),
    ),
  );
  return objects
    .filter((o) => o.kind === "ConfigMap" && names.has(o.metadata.name))
    .flatMap((o) => Object.keys(asMap(o.data)));
}
