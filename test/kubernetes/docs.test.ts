import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { ALLOWED_RBAC } from "./rules";

/** docs/aks.md's RBAC table says what rbac.yaml grants: the same list rules.ts enforces. */
it("lists in docs/aks.md exactly the RBAC verbs the install grants", () => {
  const doc = readFileSync(resolve(__dirname, "..", "..", "docs", "aks.md"), "utf8");
  const rows = [...doc.matchAll(/^\s*\| `([a-z/]+)` \| ([a-z, ]+) \|/gm)];
  const documented = rows.flatMap(([, resource, verbs]) =>
    (verbs ?? "").split(",").map((v) => `/${resource} ${v.trim()}`),
  );
  expect(documented.sort()).toEqual([...ALLOWED_RBAC].sort());
});
