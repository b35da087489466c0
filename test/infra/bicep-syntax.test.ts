import { describe, expect, it } from "vitest";
import { bicepFiles, parseBicep, rel, syntaxProblems } from "./bicep";

describe("infra/ Bicep syntax (tree-sitter Bicep grammar)", () => {
  const files = bicepFiles();

  it("finds the deployment's Bicep files", () => {
    expect(files.map(rel)).toEqual(
      expect.arrayContaining([
        "infra/main.bicep",
        "infra/core/function-app.bicep",
        "infra/relay/extension.bicep",
        "infra/relay/vm-extension.bicep",
        "infra/relay/vmss-extension.bicep",
        "infra/examples/demo-cluster/main.bicep",
      ]),
    );
  });

  it.each(files.map((f) => [rel(f), f]))(
    "%s parses without ERROR or MISSING nodes",
    async (_name, file) => {
      expect(syntaxProblems(await parseBicep(file))).toEqual([]);
    },
  );

  it("reports a syntax error where there is one (the check is not vacuous)", async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "bicep-"));
    try {
      const bad = join(dir, "bad.bicep");
      writeFileSync(
        bad,
        "resource x 'Microsoft.Web/sites@2024-04-01' = {\n  name: 'a'\n  properties: {\n",
      );
      expect(syntaxProblems(await parseBicep(bad))).not.toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
