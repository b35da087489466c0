import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO, trackedFiles } from "./sourceGraph";

/**
 * The coordinator logs through one logger (@quiesce/protocol's, functions/src/log): levels chosen
 * by the caller, bindings, redaction, Application Insights as its sink. The console is for the
 * local host (functions/src/local) and the Functions entry point (app.ts) alone; anywhere else a
 * console call would bypass the levels and the sink. Read as code (comments and strings do not
 * count), so `console[level](…)` is caught as surely as `console.warn(…)`.
 */

const ALLOWED = (file: string) =>
  file.startsWith("functions/src/local/") || file === "functions/src/app.ts";

/** Each use of the global `console` in a file, as "file:line". */
function consoleUses(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n.text === "console" && isGlobalReference(n)) {
      const { line } = source.getLineAndCharacterOfPosition(n.getStart(source));
      found.push(`${file}:${line + 1}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

/** Not a property's name (`x.console`), a key (`{ console: … }`) or a declaration's own name. */
function isGlobalReference(n: ts.Identifier): boolean {
  const p = n.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === n) return false;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name === n) return false;
  if (ts.isMethodDeclaration(p) || ts.isPropertySignature(p) || ts.isMethodSignature(p))
    return p.name !== n;
  return true;
}

describe("coordinator logging", () => {
  it("has no console call in functions/src outside the local host and app.ts", () => {
    // "functions/src", not "functions/src/**/*.ts": git's pathspec would skip the files at
    // the top of src (coordinator.ts) for want of a second slash.
    const files = trackedFiles("functions/src").filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !ALLOWED(f),
    );
    // A tracked file deleted in the working tree (a move not yet committed) has nothing to read.
    const present = files.filter((f) => existsSync(join(REPO, f)));
    const uses = present.flatMap((f) => consoleUses(f, readFileSync(join(REPO, f), "utf8")));
    expect(uses).toEqual([]);
  });

  it("sees console in code, whatever the form, and not in comments, strings or names", () => {
    const text = [
      "// console.log in a comment",
      'const s = "console.warn in a string";',
      "console.warn(s);",
      "(level === 'x' ? console.info : console.error)(s);",
      "console[level](s);",
      "const o = { console: 1 }; o.console;",
    ].join("\n");
    expect(consoleUses("x.ts", text)).toEqual(["x.ts:3", "x.ts:4", "x.ts:4", "x.ts:5"]);
  });
});
