import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { z } from "zod";
import { writeAtomically } from "../../scripts/fs/write-atomically.mjs";
import { bicepFiles, repoRoot } from "./bicep";

/**
 * The Bicep CLI run once per distinct question. A start is seconds of .NET CPU, about 30 s of the
 * suite's CPU over a dozen starts, and its answer is a function of the CLI binary, the arguments,
 * stdin, the files it reads and every infra/*.bicep file: all of them key a copy of the answer
 * (status, stdout, stderr, the files it wrote) kept under node_modules/.cache, which `npm ci`
 * empties. A run from a fresh clone asks the CLI every question; a rerun with nothing changed
 * reads the same answers back. A run the CLI did not finish (timeout, signal, no CLI) is never
 * kept.
 */

export interface BicepRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface BicepRunOptions {
  readonly input?: string;
  readonly cwd?: string;
  readonly timeout?: number;
  /**
   * A scratch directory of this run (its inputs already written, its outputs to come): its files
   * key the answer, its path stands for itself in arguments and output, and the files the CLI
   * wrote there are put back on a cached answer.
   */
  readonly scratch?: string;
}

const Cached = z.strictObject({
  status: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  written: z.record(z.string(), z.string()),
});

const SCRATCH = "<scratch>";
const cacheDir = join(repoRoot, "node_modules", ".cache", "quiesce-bicep");

function filesUnder(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, "utf8"));
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

function keyOf(bicep: string, args: string[], o: BicepRunOptions): string {
  const cli = realpathSync(bicep);
  const { size, mtimeMs } = statSync(cli);
  const hash = createHash("sha256").update(JSON.stringify([cli, size, mtimeMs, args, o.cwd ?? ""]));
  hash.update(o.input ?? "");
  for (const f of bicepFiles()) hash.update(relative(repoRoot, f)).update(readFileSync(f));
  if (o.scratch) for (const [name, text] of filesUnder(o.scratch)) hash.update(name).update(text);
  return hash.digest("hex");
}

export function runBicep(bicep: string, args: string[], o: BicepRunOptions = {}): BicepRun {
  const hide = (s: string) => (o.scratch ? s.split(o.scratch).join(SCRATCH) : s);
  const show = (s: string) => (o.scratch ? s.split(SCRATCH).join(o.scratch) : s);
  const key = keyOf(bicep, args.map(hide), o);
  const file = join(cacheDir, `${key}.run.json`);
  if (existsSync(file)) {
    const cached = Cached.parse(JSON.parse(readFileSync(file, "utf8")));
    for (const [name, text] of Object.entries(cached.written)) {
      const path = join(o.scratch ?? "", name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, show(text));
    }
    return { status: cached.status, stdout: show(cached.stdout), stderr: show(cached.stderr) };
  }
  const before = o.scratch ? filesUnder(o.scratch) : new Map<string, string>();
  const result = spawnSync(bicep, args, {
    encoding: "utf8",
    timeout: o.timeout ?? 120_000,
    ...(o.input !== undefined ? { input: o.input } : {}),
    ...(o.cwd ? { cwd: o.cwd } : {}),
  });
  if (result.error === undefined && result.status !== null) {
    const written = o.scratch
      ? Object.fromEntries(
          [...filesUnder(o.scratch)]
            .filter(([name]) => !before.has(name))
            .map(([name, text]) => [name, hide(text)]),
        )
      : {};
    const entry = {
      status: result.status,
      stdout: hide(result.stdout),
      stderr: hide(result.stderr),
      written,
    };
    // A worker asking the same question reads all of it or none.
    writeAtomically(file, JSON.stringify(entry));
  }
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/**
 * Evaluates Bicep expressions with `bicep console` (one CLI start for all), each wrapped as
 * base64(string({ v: expression })) so that every result is one line of JSON; returns the values.
 */
export function evaluateBicep(bicep: string, expressions: string[]): unknown[] {
  const result = runBicep(bicep, ["console"], {
    input: expressions.map((e) => `base64(string({ v: ${e} }))\n`).join(""),
    timeout: 60_000,
  });
  const lines = result.stdout
    .trim()
    .split("\n")
    .filter((l) => /^'[A-Za-z0-9+/=]*'$/.test(l.trim()));
  if (lines.length !== expressions.length)
    throw new Error(`bicep console: ${result.stdout}\n${result.stderr}`);
  return lines.map(
    (l) => JSON.parse(Buffer.from(l.trim().slice(1, -1), "base64").toString("utf8")).v,
  );
}
