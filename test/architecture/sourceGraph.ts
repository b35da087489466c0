import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/**
 * The repository's import graph, read the way the compiler reads it (ts.preProcessFile), for the
 * architecture tests: which workspace package each file belongs to, and which files and packages
 * it imports.
 */

export const REPO = resolve(__dirname, "..", "..");

/** The workspace packages (root package.json), by folder. */
export function workspacePackages(): { folder: string; name: string; deps: string[] }[] {
  const root = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    workspaces: string[];
  };
  return root.workspaces.map((folder) => {
    const pkg = JSON.parse(readFileSync(join(REPO, folder, "package.json"), "utf8")) as {
      name: string;
      private?: boolean;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    // A published package (not private: the CLI) ships one bundle, so what its sources import
    // is a devDependency: the bundler's input, never installed beside it.
    const bundled = pkg.private ? [] : Object.keys(pkg.devDependencies ?? {});
    return { folder, name: pkg.name, deps: [...Object.keys(pkg.dependencies ?? {}), ...bundled] };
  });
}

/** Tracked files (git ls-files), so generated and ignored files never count. */
export function trackedFiles(...patterns: string[]): string[] {
  return execFileSync("git", ["ls-files", "--", ...patterns], { cwd: REPO, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

export interface Import {
  /** As written: "@quiesce/protocol/imds", "./state", "node:fs". */
  specifier: string;
  /** Repository-relative file a relative import points at (extension-less resolution). */
  target?: string;
}

export function importsOf(file: string): Import[] {
  const text = readFileSync(join(REPO, file), "utf8");
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map(({ fileName: specifier }) => {
    if (!specifier.startsWith(".")) return { specifier };
    const target = resolveRelative(file, specifier);
    return target ? { specifier, target } : { specifier };
  });
}

const CANDIDATES = ["", ".ts", ".mts", ".mjs", ".js", "/index.ts"];

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier);
  const tracked = trackedSet();
  for (const c of CANDIDATES) {
    const f = relative(".", base + c);
    if (tracked.has(f)) return f;
  }
  return undefined;
}

let cache: Set<string> | undefined;
function trackedSet(): Set<string> {
  cache ??= new Set(trackedFiles());
  return cache;
}
