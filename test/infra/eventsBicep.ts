import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Node, Tree } from "web-tree-sitter";
import { infraDir, parseBicep } from "./bicep";
import { runBicep } from "./bicepRun";

/** What the control-plane events infra tests (control-plane-events*.test.ts) read the Bicep with. */

// biome-ignore lint/suspicious/noExplicitAny: compiled ARM templates are inspected field by field
export type Json = Record<string, any>;

export const resourcesOf = (template: Json): Json[] =>
  Array.isArray(template.resources) ? template.resources : Object.values(template.resources ?? {});

/** The resource (or nested deployment) whose name expression contains `part`. */
export function named(template: Json, part: string): Json {
  const found = resourcesOf(template).find((r) => String(r.name).includes(part));
  if (!found) throw new Error(`no resource named like ${part}`);
  return found;
}

/**
 * infra/<file> compiled by the Bicep CLI, as JSON. Several test files check the same compiled
 * main.bicep: the first asks the CLI, the others read its answer (runBicep).
 */
export function compile(bicep: string, file: string): Json {
  const built = runBicep(bicep, ["build", join(infraDir, file), "--stdout"]);
  if (built.status !== 0) throw new Error(`bicep build ${file}: ${built.stderr}`);
  return JSON.parse(built.stdout);
}

/**
 * `bicep build-params` of one parameters file per entry of `cases`, each for infra/main.bicep with
 * the required parameters and the entry's lines (Bicep syntax): the compiler checks @allowed and
 * types against main.bicep. One CLI start for all (--pattern; a start is seconds of .NET CPU):
 * each result is whether its file built, and the diagnostics that name it.
 */
export function buildParams(bicep: string, cases: string[][]): { ok: boolean; output: string }[] {
  const dir = mkdtempSync(join(tmpdir(), "bicep-params-"));
  try {
    const using = relative(dir, join(infraDir, "main.bicep")).replace(/\\/g, "/");
    const files = cases.map((extra, i) => {
      const file = join(dir, `case${i}.bicepparam`);
      writeFileSync(
        file,
        [
          `using '${using}'`,
          "param environmentName = 'test'",
          "param location = 'westeurope'",
          "param entraAudience = 'api://00000000-0000-0000-0000-000000000000'",
          ...extra,
        ].join("\n"),
      );
      return file;
    });
    const out = join(dir, "out");
    const result = runBicep(
      bicep,
      ["build-params", "--pattern", join(dir, "*.bicepparam"), "--outdir", out],
      { timeout: 60_000, scratch: dir },
    );
    const lines = `${result.stdout}\n${result.stderr}`.split("\n");
    return files.map((file, i) => {
      const output = lines.filter((l) => l.includes(file)).join("\n");
      const built = existsSync(join(out, `case${i}.json`));
      return { ok: built && !/ : Error /.test(output), output };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every variable and function declaration of a Bicep file, as `bicep console` input: decorators
 * and comments between declarations left out, a body that starts on the line after `=>` joined to
 * it (the console reads a declaration line by line, continuing only inside brackets).
 */
export async function consoleDeclarations(file: string): Promise<string> {
  const tree: Tree = await parseBicep(join(infraDir, file));
  return tree.rootNode.namedChildren
    .filter(
      (n): n is Node => n?.type === "variable_declaration" || n?.type === "user_defined_function",
    )
    .map((n) => n.text.replace(/=>\s*\n\s+/g, "=> "))
    .join("\n");
}

/** The decorators written just before a top-level declaration (e.g. a parameter's @allowed). */
export function decoratorsOf(tree: Tree, name: string): string {
  const children = tree.rootNode.namedChildren.filter((n): n is Node => n !== null);
  const index = children.findIndex(
    (c) => c.namedChildren.find((n) => n?.type === "identifier")?.text === name,
  );
  const before = children[index - 1];
  return before?.type === "decorators" ? before.text : "";
}

/** The text of the `@allowed([...])` decorator's strings, or undefined. */
export function allowedValues(decorators: string): string[] | undefined {
  const list = decorators.match(/@allowed\(\[([^\]]*)\]\)/)?.[1];
  return list === undefined ? undefined : [...list.matchAll(/'([^']*)'/g)].map((m) => m[1] ?? "");
}

export type Evaluated = { value: unknown } | { error: string };

/**
 * Evaluates expressions with `bicep console` after the given declarations (one CLI start for all):
 * each result is its value, or the message of the deployment failure it raised (fail()).
 */
export function consoleEval(
  bicep: string,
  declarations: string,
  expressions: string[],
): Evaluated[] {
  return evaluateEach(
    bicep,
    expressions.map((expression, i) => ({
      given: {},
      declarations: i === 0 ? [declarations] : [],
      expression,
    })),
  );
}

/** The value of an evaluation that must not have failed. */
export function succeeded(evaluated: Evaluated | undefined): unknown {
  if (!evaluated || "error" in evaluated)
    throw new Error(`evaluation failed: ${JSON.stringify(evaluated)}`);
  return evaluated.value;
}

/** One expression to evaluate after its inputs are stubbed (see evaluateEach). */
export type Case = { given: Record<string, string>; declarations: string[]; expression: string };

/**
 * Each case's expression evaluated after `var name = value` for each entry of its `given` (Bicep
 * expressions) and its declarations, as written in a file: the file's own text, its inputs stubbed.
 * All in one `bicep console` session (a CLI start is seconds of .NET CPU): the console lets a
 * later `var` redeclare an earlier one, and evaluates variables when they are read.
 */
export function evaluateEach(bicep: string, cases: Case[]): Evaluated[] {
  const results: Evaluated[] = [];
  const script = cases.map(({ given, declarations, expression }) => [
    ...Object.entries(given).map(([name, value]) => `var ${name} = ${value}`),
    ...declarations,
    `base64(string({ v: ${expression} }))`,
  ]);
  const result = runBicep(bicep, ["console"], {
    input: `${script.flat().join("\n")}\n`,
    timeout: 60_000,
  });
  for (const line of result.stdout.split("\n")) {
    const value = line.trim().match(/^'([A-Za-z0-9+/=]*)'$/)?.[1];
    const failed = line.match(
      /Failed to evaluate expression "base64\(string\(\{ v: .*\}\)\)": (.*)$/,
    );
    if (value !== undefined)
      results.push({ value: JSON.parse(Buffer.from(value, "base64").toString("utf8")).v });
    else if (failed) results.push({ error: failed[1] ?? "" });
  }
  if (results.length !== cases.length)
    throw new Error(`bicep console: ${result.stdout}\n${result.stderr}`);
  return results;
}
