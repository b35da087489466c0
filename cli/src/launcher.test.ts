import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_VERSION } from "./version";

/**
 * bin/quiesce.js in a checkout (a copy of the parts it needs, the repository's node_modules
 * linked): `npx quiesce` after `npm ci` alone has no dist/ yet, so the launcher bundles the
 * sources first; it does not bundle again while they are unchanged, and does after they change.
 */
describe("the quiesce launcher in a checkout", () => {
  const repo = join(__dirname, "..", "..");
  let checkout = "";
  beforeAll(async () => {
    checkout = await mkdtemp(join(tmpdir(), "quiesce-checkout-"));
    const copy = (path: string) => cp(join(repo, path), join(checkout, path), { recursive: true });
    for (const path of ["cli/bin", "cli/scripts", "cli/src", "cli/package.json", "protocol/src"])
      await copy(path);
    await copy("scripts/esbuild");
    await copy("scripts/fs");
    await symlink(join(repo, "node_modules"), join(checkout, "node_modules"), "dir");
  });
  afterAll(async () => {
    await rm(checkout, { recursive: true, force: true });
  });

  const bundle = () => join(checkout, "cli", "dist", "quiesce.cjs");
  const version = () =>
    spawnSync(process.execPath, [join(checkout, "cli", "bin", "quiesce.js"), "--version"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });

  it("bundles the sources on first use, then runs them, with stdout clean", async () => {
    await expect(stat(bundle())).rejects.toThrow(/ENOENT/);
    expect(version()).toMatchObject({ status: 0, stdout: `${CLI_VERSION}\n` });
    expect((await stat(bundle())).isFile()).toBe(true);
  });

  it("keeps the bundle while no source changed, and bundles again once one did", async () => {
    const built = (await stat(bundle())).mtimeMs;
    expect(version()).toMatchObject({ status: 0, stdout: `${CLI_VERSION}\n` });
    expect((await stat(bundle())).mtimeMs).toBe(built);

    const file = join(checkout, "cli", "src", "version.ts");
    const source = await readFile(file, "utf8");
    await writeFile(file, source.replace(/"[^"]+";/, '"9.9.9-edited";'));
    expect(version()).toMatchObject({ status: 0, stdout: "9.9.9-edited\n", stderr: "" });
  });
});
