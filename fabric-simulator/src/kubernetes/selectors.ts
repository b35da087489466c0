import type { Result } from "@quiesce/protocol";
import type { Labels } from "./types";

/**
 * `fieldSelector` and `labelSelector` as the API server reads them. Field selectors accept only
 * the fields a resource declares selectable (kubernetes pkg/registry/core/node/strategy.go:
 * `metadata.name` and `spec.unschedulable` for nodes; pods add `spec.nodeName`, `status.phase`
 * and more). Anything else is a 400 `field label not supported` — which is why a client cannot
 * ask for a node by `spec.providerID` and has to list nodes and compare.
 */

export interface Requirement {
  readonly key: string;
  readonly op: "=" | "!=" | "exists" | "!exists";
  readonly value?: string;
}

const SELECTABLE: Record<"nodes" | "pods", readonly string[]> = {
  nodes: ["metadata.name", "spec.unschedulable"],
  pods: [
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
  ],
};

function terms(text: string | null): string[] {
  return (text ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

export function parseFieldSelector(
  resource: "nodes" | "pods",
  text: string | null,
): Result<Requirement[]> {
  const out: Requirement[] = [];
  for (const t of terms(text)) {
    const m = /^([^!=]+)(==|=|!=)(.*)$/.exec(t);
    if (!m) return { ok: false, error: `invalid field selector: ${t}` };
    const key = (m[1] as string).trim();
    if (!SELECTABLE[resource].includes(key))
      return { ok: false, error: `field label not supported: ${key}` };
    out.push({ key, op: m[2] === "!=" ? "!=" : "=", value: (m[3] as string).trim() });
  }
  return { ok: true, value: out };
}

/** Equality (`k=v`, `k==v`, `k!=v`) and existence (`k`, `!k`); set-based forms are refused. */
export function parseLabelSelector(text: string | null): Result<Requirement[]> {
  const out: Requirement[] = [];
  for (const t of terms(text)) {
    const eq = /^([A-Za-z0-9._/-]+)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$/.exec(t);
    if (eq) {
      out.push({ key: eq[1] as string, op: eq[2] === "!=" ? "!=" : "=", value: eq[3] as string });
      continue;
    }
    const ex = /^(!?)([A-Za-z0-9._/-]+)$/.exec(t);
    if (!ex)
      return {
        ok: false,
        error: `unable to parse requirement: ${t} (the stand-in reads equality and existence only)`,
      };
    out.push({ key: ex[2] as string, op: ex[1] ? "!exists" : "exists" });
  }
  return { ok: true, value: out };
}

export function matches(values: Labels, requirements: readonly Requirement[]): boolean {
  return requirements.every((r) => {
    const v = values[r.key];
    if (r.op === "=") return v === r.value;
    if (r.op === "!=") return v !== r.value;
    return r.op === "exists" ? v !== undefined : v === undefined;
  });
}
