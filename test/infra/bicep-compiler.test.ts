import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bicepCli, bicepFiles, repoRoot } from "./bicep";
import { runBicep } from "./bicepRun";

/**
 * The real Bicep compiler and linter over infra/: type errors, unknown properties and API
 * versions, and linter warnings, which the grammar check cannot see. The compiler is the one
 * scripts/bicep/restore.sh puts in .tools/bicep (CI runs it first), else `bicep` on PATH.
 */
describe("infra/ with the Bicep compiler", () => {
  const bicep = bicepCli();

  it("compiles every Bicep file with no error and no linter warning (when the Bicep CLI is restored)", () => {
    if (!bicep) {
      // Without NuGet (offline machine) there is no compiler: the tree-sitter check still ran.
      console.warn("Bicep CLI not found (scripts/bicep/restore.sh): only the grammar check ran");
      return;
    }
    const out = mkdtempSync(join(tmpdir(), "bicep-build-"));
    try {
      // One process for all files: the CLI takes seconds to start. build also runs the linter.
      const result = runBicep(bicep, ["build", "--pattern", "infra/**/*.bicep", "--outdir", out], {
        cwd: repoRoot,
        scratch: out,
      });
      const diagnostics = `${result.stdout}\n${result.stderr}`
        .split("\n")
        .filter((line) => / : (Error|Warning) /.test(line));
      expect(diagnostics).toEqual([]);
      expect(result.status).toBe(0);
      const built = execFileSync("find", [out, "-name", "*.json"], { encoding: "utf8" })
        .trim()
        .split("\n");
      expect(built).toHaveLength(bicepFiles().length);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
