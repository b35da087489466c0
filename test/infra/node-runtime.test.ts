import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, trackedFiles } from "../architecture/sourceGraph";

/**
 * One Node.js: the major the Function app is deployed on (infra/core/function-app.bicep's
 * runtime version) is the one every test runs on, the one npm ci installs for the scripts, the
 * one every bundle targets and the least the relay's installers, image and the CLI accept.
 */
const read = (path: string) => readFileSync(join(REPO, path), "utf8");
const azureMajor = (() => {
  const bicep = read("infra/core/function-app.bicep");
  const runtime = /runtime:\s*\{\s*name:\s*'node'\s*version:\s*'(\d+)'/.exec(bicep);
  if (!runtime?.[1]) throw new Error("function-app.bicep names no node runtime version");
  return Number(runtime[1]);
})();

describe("the Node.js the product runs on", () => {
  it("runs this suite on the major the Function app is deployed on", () => {
    expect(Number(process.versions.node.split(".")[0])).toBe(azureMajor);
  });

  it("is what npm ci installs for the scripts (the node package, pinned)", () => {
    const pkg = JSON.parse(read("package.json")) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies.node).toMatch(new RegExp(`^${azureMajor}\\.\\d+\\.\\d+$`));
  });

  it("is what every esbuild bundle targets", () => {
    const targets = trackedFiles("*.ts", "*.mjs")
      .filter((f) => !f.startsWith("test/infra/node-runtime"))
      .flatMap((f) => [...read(f).matchAll(/target:\s*"node(\d+)"/g)].map((m) => `${f}: ${m[1]}`));
    expect(targets.length).toBeGreaterThanOrEqual(5);
    expect(targets.filter((t) => !t.endsWith(`: ${azureMajor}`))).toEqual([]);
  });

  it("is the least the relay's installers, its image and the CLI package accept", () => {
    const sh = read("relay/packaging/linux/install.sh");
    expect(/\[ "\$MAJOR" -ge (\d+) \]/.exec(sh)?.[1]).toBe(String(azureMajor));
    const ps1 = read("relay/packaging/windows/install.ps1");
    expect(/\$major -lt (\d+)/.exec(ps1)?.[1]).toBe(String(azureMajor));
    const dockerfile = read("relay/packaging/container/Dockerfile");
    expect(/ARG NODE_IMAGE=node:(\d+)-/.exec(dockerfile)?.[1]).toBe(String(azureMajor));
    const cli = JSON.parse(read("cli/package.json")) as { engines: { node: string } };
    expect(cli.engines.node).toMatch(new RegExp(`^>=${azureMajor}\\.`));
  });
});
