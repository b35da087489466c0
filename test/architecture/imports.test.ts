import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf, REPO, trackedFiles, workspacePackages } from "./sourceGraph";

/**
 * The design, checked: packages depend only on what their package.json names (so the relay can
 * never ship the coordinator's core), and inside each package the arrows between folders run one
 * way. A failure names the offending files.
 */

const packages = workspacePackages();
const sources = (folder: string) =>
  trackedFiles(`${folder}/src/*.ts`).filter((f) => !f.endsWith(".test.ts"));

describe("packages", () => {
  it.each(packages.map((p) => [p.name, p]))(
    "%s imports only the workspace packages its package.json depends on",
    (_name, p) => {
      const stray = sources(p.folder).flatMap((file) =>
        importsOf(file)
          .map((i) => /^(@quiesce\/[a-z-]+)/.exec(i.specifier)?.[1])
          .filter((dep): dep is string => !!dep && dep !== p.name && !p.deps.includes(dep))
          .map((dep) => `${file} imports ${dep}`),
      );
      expect(stray).toEqual([]);
    },
  );

  it("keeps the relay and the simulator on the protocol alone, and the core on nothing else", () => {
    const deps = (name: string) =>
      (packages.find((p) => p.name === name)?.deps ?? []).filter((d) => d.startsWith("@quiesce/"));
    expect(deps("@quiesce/protocol")).toEqual([]);
    expect(deps("@quiesce/core")).toEqual(["@quiesce/protocol"]);
    expect(deps("@quiesce/relay")).toEqual(["@quiesce/protocol"]);
    expect(deps("@quiesce/fabric-simulator")).toEqual(["@quiesce/protocol"]);
    expect(deps("@quiesce/cli")).toEqual(["@quiesce/protocol"]);
  });

  // The repository's build tooling (scripts/esbuild: bundle workspace packages from sources) is
  // the one thing outside a package that a package (the testkit's coordinator bundle) may use.
  const TOOLING = "scripts/esbuild/";

  it("has no relative import that leaves its package, but for the build tooling", () => {
    const leaving = packages.flatMap((p) =>
      sources(p.folder).flatMap((file) =>
        importsOf(file)
          .filter(
            (i) =>
              i.specifier.startsWith(".") &&
              i.target &&
              !i.target.startsWith(`${p.folder}/`) &&
              !i.target.startsWith(TOOLING),
          )
          .map((i) => `${file} imports ${i.target}`),
      ),
    );
    expect(leaving).toEqual([]);
  });
});

/**
 * A node of a package's folder graph: the folder of a file (relative to src), or, for a file at
 * the top of src, the file itself (a top-level module such as config.ts is its own layer).
 */
function node(srcRoot: string, file: string): string {
  const dir = relative(srcRoot, dirname(file));
  return dir === "" ? relative(srcRoot, file) : (dir.split("/")[0] as string);
}

/** Every cycle's first edge found by depth-first search, as "a -> b -> ... -> a". */
function cycles(edges: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, "open");
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === "open") found.push([...stack.slice(stack.indexOf(m)), m].join(" -> "));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of edges.keys()) if (!state.has(n)) visit(n);
  return found;
}

describe("folders", () => {
  it.each(packages.map((p) => [p.folder, p]))(
    "%s/src: the arrows between its folders run one way (no cycle)",
    (_folder, p) => {
      const srcRoot = `${p.folder}/src`;
      const edges = new Map<string, Set<string>>();
      const via = new Map<string, string>();
      for (const file of sources(p.folder)) {
        const from = node(srcRoot, file);
        for (const i of importsOf(file)) {
          if (!i.target?.startsWith(`${srcRoot}/`)) continue;
          const to = node(srcRoot, i.target);
          if (to === from || from === "index.ts") continue; // the barrel re-exports, it decides nothing
          if (!edges.has(from)) edges.set(from, new Set());
          edges.get(from)?.add(to);
          via.set(`${from} -> ${to}`, `${file} imports ${i.target}`);
        }
      }
      const explained = cycles(edges).map((c) => {
        const parts = c.split(" -> ");
        const why = parts.slice(1).map((to, k) => via.get(`${parts[k]} -> ${to}`));
        return `${c} (${why.join("; ")})`;
      });
      expect(explained).toEqual([]);
    },
  );
});

/** Every product file: the packages' sources, the benchmarks and the build scripts; no tests. */
const productFiles = () =>
  trackedFiles("*.ts", "*.mts").filter(
    (f) => !/\.test\.ts$|(^|\/)test\/|^node_modules\//.test(f) && !f.startsWith("test/"),
  );

describe("files", () => {
  it("import each other without a circle anywhere in the product, type-only imports included", () => {
    const edges = new Map<string, Set<string>>();
    for (const file of productFiles())
      for (const i of importsOf(file))
        if (i.target && i.target !== file)
          edges.set(file, (edges.get(file) ?? new Set()).add(i.target));
    expect(cycles(edges)).toEqual([]);
  });
});

/**
 * The core's layers (core/src): model <- rules <- lifecycle <- rounds | views, and attestation
 * beside them on the model alone. A folder imports only the folders listed for it here; index.ts
 * (the package's one entry, named exports only) imports any.
 */
const CORE_LAYERS: Record<string, string[]> = {
  model: [],
  rules: ["model"],
  lifecycle: ["model", "rules"],
  rounds: ["model", "rules", "lifecycle"],
  views: ["model", "rules", "lifecycle"],
  attestation: ["model"],
};

describe("the core (core/src)", () => {
  const files = sources("core");

  it("has only its layers' folders, and one file at the top: index.ts", () => {
    const top = files.map((f) => relative("core/src", f).split("/"));
    expect(top.filter((p) => p.length === 1).map((p) => p[0])).toEqual(["index.ts"]);
    expect([...new Set(top.filter((p) => p.length > 1).map((p) => p[0]))].sort()).toEqual(
      Object.keys(CORE_LAYERS).sort(),
    );
  });

  it("imports only down its layers: model <- rules <- lifecycle <- rounds | views", () => {
    const wrong = files.flatMap((file) => {
      const from = relative("core/src", file).split("/")[0] ?? "";
      if (from === "index.ts") return [];
      return importsOf(file)
        .filter((i) => i.target?.startsWith("core/src/"))
        .map((i) => ({ i, to: relative("core/src", i.target ?? "").split("/")[0] ?? "" }))
        .filter(({ to }) => to !== from && !(CORE_LAYERS[from] ?? []).includes(to))
        .map(({ i }) => `${file} imports ${i.target}`);
    });
    expect(wrong).toEqual([]);
  });

  it("hands out named exports only: no export * barrel", () => {
    const barrels = files.filter((f) =>
      /^export \* from /m.test(readFileSync(join(REPO, f), "utf8")),
    );
    expect(barrels).toEqual([]);
  });
});
