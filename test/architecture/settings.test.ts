import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COORDINATOR_SETTING_NAMES } from "@quiesce/functions";
import { likelyMeant } from "@quiesce/protocol";
import { RELAY_SETTING_NAMES } from "@quiesce/relay";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO, trackedFiles } from "./sourceGraph";

/**
 * Settings end at the composition root (issue 30): the config files parse the QUIESCE_*
 * settings and turn them into typed options in the units the code counts in; the composition
 * roots build those once and hand each part its own. Nothing else names a setting in code or in
 * a string: a message that must name one for the operator takes the name from its config module
 * (settingName in functions/src/options.ts, relay/src/options.ts). Comments may name settings:
 * they tell a reader what a value means to an operator, and no code reads them.
 */
const ALLOWED: Record<string, string> = {
  "functions/src/config.ts": "the coordinator's settings",
  "functions/src/configPublished.ts": "the coordinator's settings of published events",
  "functions/src/configChangeSafety.ts": "the coordinator's setting of Azure Change Safety",
  "functions/src/configSubscriptions.ts":
    "the coordinator's setting of the subscriptions it serves",
  "functions/src/options.ts": "the coordinator's settings made options",
  "functions/src/coordinator.ts": "composition root",
  // Its timer's schedule is the Functions host's binding expression %QUIESCE_SWEEP_SCHEDULE%.
  "functions/src/app.ts": "composition root (the Functions host)",
  "functions/src/local/main.ts": "composition root (the local host's command)",
  "functions/src/local/server.ts": "composition root (the local host)",
  "relay/src/config.ts": "the relay's settings",
  "relay/src/options.ts": "the relay's settings made options",
  "relay/src/cli.ts": "composition root (the relay's command)",
  "relay/src/relay.ts": "composition root",
  // Not settings: the environment variables a hook command is given (docs/relay.md) are a
  // contract with the operator's hook scripts, kept in this one file.
  "relay/src/hooks/payload.ts": "the hook environment's contract",
  // The operator CLI has no more config than its arguments and these environment variables.
  "cli/src/args.ts": "the operator CLI's arguments and environment",
};

const FOLDERS = ["functions/src", "relay/src", "cli/src", "core/src", "protocol/src"];
const SETTING = /QUIESCE_/;

/** Product sources (a tracked file already deleted from the work tree is on its way out). */
const sources = () =>
  trackedFiles(...FOLDERS.map((f) => `${f}/*.ts`)).filter(
    (f) => !f.endsWith(".test.ts") && existsSync(join(REPO, f)),
  );

/** Each token (identifier, string, template part) naming a setting, as "line N: token". */
function settingTokens(file: string, text = readFileSync(join(REPO, file), "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    // Comments are trivia, outside every token; JSDoc alone is parsed into nodes of its own.
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode)
      return;
    const children = node.getChildren(source);
    if (children.length === 0) {
      const token = node.getText(source);
      if (SETTING.test(token)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`line ${line}: ${token.length > 60 ? `${token.slice(0, 57)}...` : token}`);
      }
    }
    for (const child of children) visit(child);
  };
  visit(source);
  return found;
}

describe("settings", () => {
  it("are named in code only by the config files and the composition roots", () => {
    const offenders = sources()
      .filter((f) => !(f in ALLOWED))
      .map((f) => ({ f, tokens: settingTokens(f) }))
      .filter(({ tokens }) => tokens.length > 0)
      .map(({ f, tokens }) => `${f} (${tokens.join("; ")})`);
    expect(offenders).toEqual([]);
  });

  it("counts names in code and strings, not in comments", () => {
    const text = [
      "// QUIESCE_IN_A_COMMENT",
      "/** QUIESCE_IN_JSDOC */",
      "const a = s.QUIESCE_READ;",
      'const b = "QUIESCE_IN_A_STRING";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text holding a template literal
      "const c = `${a} QUIESCE_IN_A_TEMPLATE ${b}`; /* QUIESCE_TRAILING */",
    ].join("\n");
    expect(settingTokens("probe.ts", text)).toEqual([
      "line 3: QUIESCE_READ",
      'line 4: "QUIESCE_IN_A_STRING"',
      "line 5: } QUIESCE_IN_A_TEMPLATE ${",
    ]);
  });

  it("are never one typo from the other program's, which may share an environment (npm start)", () => {
    // Each program refuses a name a typo away from its own (did you mean …?); the other's names
    // must not be taken for one.
    const nearOther = (mine: readonly string[], other: readonly string[]) =>
      other.filter((n) => !mine.includes(n) && likelyMeant(n, mine) !== undefined);
    expect(nearOther(COORDINATOR_SETTING_NAMES, RELAY_SETTING_NAMES)).toEqual([]);
    expect(nearOther(RELAY_SETTING_NAMES, COORDINATOR_SETTING_NAMES)).toEqual([]);
  });

  it("lets only files that exist be allowed", () => {
    expect(Object.keys(ALLOWED).filter((f) => !existsSync(join(REPO, f)))).toEqual([]);
  });
});
