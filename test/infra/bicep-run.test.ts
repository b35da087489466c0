import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBicep } from "./bicepRun";

/**
 * runBicep keeps the CLI's answers between runs: a stand-in CLI (a shell script that counts its
 * starts) shows that an answer is reused only for the same question, that the files a run wrote
 * come back on reuse, and that an unfinished run is asked again.
 */
describe("runBicep (the Bicep CLI's answers, kept by question)", () => {
  const dir = mkdtempSync(join(tmpdir(), "bicep-run-"));
  const starts = join(dir, "starts");
  const cli = join(dir, `cli-${process.pid}-${Date.now()}.sh`);
  writeFileSync(starts, "");
  writeFileSync(
    cli,
    [
      "#!/usr/bin/env bash",
      `echo x >> '${starts}'`,
      'if [ "$1" = sleep ]; then sleep 5; fi',
      'if [ "$1" = write ]; then mkdir -p "$2/out" && echo "{\\"from\\": \\"$2\\"}" > "$2/out/a.json"; fi',
      'echo "args: $*"; echo "stdin: $(cat)"; echo "to stderr: $*" >&2; exit 3',
      "",
    ].join("\n"),
  );
  chmodSync(cli, 0o755);
  const count = () => readFileSync(starts, "utf8").split("\n").filter(Boolean).length;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers the same question from the first run's answer, and asks again when stdin or the arguments differ", () => {
    const first = runBicep(cli, ["console"], { input: "1 + 1\n" });
    expect(first).toEqual({
      status: 3,
      stdout: "args: console\nstdin: 1 + 1\n",
      stderr: "to stderr: console\n",
    });
    expect(runBicep(cli, ["console"], { input: "1 + 1\n" })).toEqual(first);
    expect(count()).toBe(1);
    expect(runBicep(cli, ["console"], { input: "1 + 2\n" }).stdout).toContain("1 + 2");
    expect(runBicep(cli, ["build"], { input: "1 + 1\n" }).stdout).toContain("args: build");
    expect(count()).toBe(3);
  });

  it("puts back the files a run wrote in its scratch directory, under the new directory's name", () => {
    const scratch = (name: string) => mkdtempSync(join(dir, name));
    const a = scratch("a-");
    writeFileSync(join(a, "case0.bicepparam"), "param x = 1");
    const ran = runBicep(cli, ["write", a], { scratch: a, input: "" });
    const b = scratch("b-");
    writeFileSync(join(b, "case0.bicepparam"), "param x = 1");
    const reused = runBicep(cli, ["write", b], { scratch: b, input: "" });
    expect(count()).toBe(4);
    expect(reused.stdout).toBe(ran.stdout.split(a).join(b));
    expect(JSON.parse(readFileSync(join(b, "out", "a.json"), "utf8"))).toEqual({ from: b });
    // Different input files in the scratch directory: a different question.
    const c = scratch("c-");
    writeFileSync(join(c, "case0.bicepparam"), "param x = 2");
    runBicep(cli, ["write", c], { scratch: c, input: "" });
    expect(count()).toBe(5);
  });

  it("keeps no answer of a run the CLI did not finish", () => {
    const before = count();
    expect(runBicep(cli, ["sleep"], { input: "", timeout: 200 }).status).toBeNull();
    expect(runBicep(cli, ["sleep"], { input: "", timeout: 200 }).status).toBeNull();
    expect(count()).toBe(before + 2);
  });
});
