import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bicepFiles,
  declaration,
  infraDir,
  parseBicep,
  properties,
  rel,
  repoRoot,
  stringLiteral,
  stringLiterals,
} from "./bicep";

/**
 * Role definition ids are opaque GUIDs: a wrong one deploys a role assignment of some other role
 * (or fails late). They live in one Bicep file, and docs/deploy.md has the same table with the
 * role names, which is what a reviewer checks against Azure's list of built-in roles.
 */

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function rolesInBicep(): Promise<Map<string, string>> {
  const tree = await parseBicep(join(infraDir, "shared", "roles.bicep"));
  return new Map(
    properties(declaration(tree, "builtInRoles")).map(({ key, value }) => [
      key,
      stringLiteral(value) ?? value.text,
    ]),
  );
}

/** Rows of the table between the role-table markers: [name, id, bicep key]. */
function rolesInDocs(): { name: string; id: string; key: string }[] {
  const doc = readFileSync(join(repoRoot, "docs", "deploy.md"), "utf8");
  const table = doc.split("<!-- role-table:start -->")[1]?.split("<!-- role-table:end -->")[0];
  if (!table)
    throw new Error(
      "docs/deploy.md has no <!-- role-table:start --> ... <!-- role-table:end --> table",
    );
  return table
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
    .slice(1) // header
    .map((line) => {
      const [name, id, key] = line
        .split("|")
        .slice(1, 4)
        .map((c) => c.trim().replace(/`/g, ""));
      return { name: name ?? "", id: id ?? "", key: key ?? "" };
    });
}

const camel = (name: string) =>
  name
    .split(/\s+/)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]?.toUpperCase() + w.slice(1)))
    .join("");

describe("role definition ids", () => {
  it("are the same in infra/shared/roles.bicep and the table in docs/deploy.md", async () => {
    const bicep = await rolesInBicep();
    const docs = rolesInDocs();
    expect(docs.length).toBeGreaterThan(0);
    expect(Object.fromEntries(docs.map((r) => [r.key, r.id]))).toEqual(Object.fromEntries(bicep));
  });

  it("are GUIDs whose Bicep key is the documented role name", async () => {
    for (const { name, id, key } of rolesInDocs()) {
      expect(id, name).toMatch(GUID);
      expect(key, name).toBe(camel(name));
    }
  });

  it("appear nowhere else in infra/ as literals: every assignment goes through builtInRoles", async () => {
    const strays: string[] = [];
    for (const file of bicepFiles()) {
      if (file.endsWith(join("shared", "roles.bicep"))) continue;
      const guids = stringLiterals(await parseBicep(file)).filter((s) => GUID.test(s));
      strays.push(...guids.map((g) => `${rel(file)}: ${g}`));
    }
    expect(strays).toEqual([]);
  });

  it("are each used by a role assignment", async () => {
    const text = bicepFiles()
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    const unused = [...(await rolesInBicep()).keys()].filter(
      (key) => !text.includes(`builtInRoles.${key}`),
    );
    expect(unused).toEqual([]);
  });
});
