/**
 * A scenario's policy may name what only exists once the fabric runs: its URL (an HTTP gate's
 * health endpoint, `{{fabricUrl}}/health/app`) and its resource group's ARM id (an alert rule,
 * `{{resourceGroupId}}/providers/Microsoft.Insights/metricAlerts/high-error-rate`), and the
 * appliance drain service's (`{{hookServiceUrl}}/drain/{vmName}`). A maintenance window can only
 * be told relative to when the demo runs: `{{windowDay:+65}}` and `{{windowTime:+65}}` are the UTC
 * day ("Mon") and time ("HH:MM") of the first whole minute at least 65 s after the start.
 */

export interface PolicyPlaceholders {
  fabricUrl: string;
  resourceGroupId: string;
  /** The scenario's appliance drain service (hookService), for the agentless policy's hooks. */
  hookServiceUrl: string;
  /** When the scenario starts (epoch ms) for `{{windowDay:+S}}`/`{{windowTime:+S}}`; default now. */
  startedAt?: number;
}

const NAMES: ReadonlyArray<keyof PolicyPlaceholders> = [
  "fabricUrl",
  "resourceGroupId",
  "hookServiceUrl",
];
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const TIMED = /^window(Day|Time):\+(\d{1,6})$/;
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

const known = (name: string) =>
  NAMES.includes(name as keyof PolicyPlaceholders) || TIMED.test(name);

/** A timed placeholder's value: the first whole minute at least `seconds` after `start`. */
function timed(name: string, start: number): string | undefined {
  const m = TIMED.exec(name);
  if (!m) return undefined;
  const t = new Date(Math.ceil((start + Number(m[2]) * 1000) / 60_000) * 60_000);
  if (m[1] === "Day") return DAYS[t.getUTCDay()];
  return `${String(t.getUTCHours()).padStart(2, "0")}:${String(t.getUTCMinutes()).padStart(2, "0")}`;
}

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
      if (!known(m[1] ?? ""))
        problems.push(
          `${path}: unknown placeholder ${m[0]} (known: {{${NAMES.join("}}, {{")}}}, {{windowDay:+S}}, {{windowTime:+S}})`,
        );
    }
  }
  return problems;
}

/** The policy with every placeholder replaced by its value (the input is left as it was). */
export function fillPolicy<T>(policy: T, values: PolicyPlaceholders): T {
  const start = values.startedAt ?? Date.now();
  const fill = (v: unknown): unknown => {
    if (typeof v === "string")
      return v.replace(PLACEHOLDER, (whole, name: string) =>
        NAMES.includes(name as keyof PolicyPlaceholders)
          ? String(values[name as keyof PolicyPlaceholders])
          : (timed(name, start) ?? whole),
      );
    if (Array.isArray(v)) return v.map(fill);
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(policy) as T;
}
