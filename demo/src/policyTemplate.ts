/**
 * A scenario's policy may name what only exists once the fabric runs: its URL (an HTTP gate's
 * health endpoint, `{{fabricUrl}}/health/app`) and its resource group's ARM id (an alert rule,
 * `{{resourceGroupId}}/providers/Microsoft.Insights/metricAlerts/high-error-rate`), and the
 * appliance drain service's (`{{hookServiceUrl}}/drain/{vmName}`).
 */

export interface PolicyPlaceholders {
  fabricUrl: string;
  resourceGroupId: string;
  /** The scenario's appliance drain service (hookService), for the agentless policy's hooks. */
  hookServiceUrl: string;
}

const NAMES: ReadonlyArray<keyof PolicyPlaceholders> = [
  "fabricUrl",
  "resourceGroupId",
  "hookServiceUrl",
];
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Every string in `value` (nested objects and arrays included). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === "string") yield [path, value];
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* strings(v, `${path}.${i}`);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) yield* strings(v, path ? `${path}.${k}` : k);
  }
}

/** Placeholders that are not one of ours, named with where they are. */
export function placeholderProblems(policy: unknown): string[] {
  const problems: string[] = [];
  for (const [path, s] of strings(policy, "")) {
    for (const m of s.matchAll(PLACEHOLDER)) {
      if (!NAMES.includes(m[1] as keyof PolicyPlaceholders))
        problems.push(`${path}: unknown placeholder ${m[0]} (known: {{${NAMES.join("}}, {{")}}})`);
    }
  }
  return problems;
}

/** The policy with every placeholder replaced by its value (the input is left as it was). */
export function fillPolicy<T>(policy: T, values: PolicyPlaceholders): T {
  const fill = (v: unknown): unknown => {
    if (typeof v === "string")
      return v.replace(PLACEHOLDER, (whole, name: string) =>
        NAMES.includes(name as keyof PolicyPlaceholders)
          ? values[name as keyof PolicyPlaceholders]
          : whole,
      );
    if (Array.isArray(v)) return v.map(fill);
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(policy) as T;
}
