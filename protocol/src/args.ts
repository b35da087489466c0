/**
 * Command-line arguments as the relay, the CLI and the demo read them: node:util's parseArgs with
 * `strict: false, tokens: true` (so a value may start with a single dash; leave allowPositionals
 * unset, this check refuses positionals), then this check, which every tool words in its own way. No node:util import here: the status page bundles this package.
 */

/** One token of node:util's parseArgs (`tokens: true`), as far as checking needs. */
export type ArgToken =
  | {
      kind: "option";
      name: string;
      rawName: string;
      value?: string | undefined;
      inlineValue?: boolean | undefined;
    }
  | { kind: "positional"; value: string }
  | { kind: "option-terminator" };

export type ArgProblem =
  /** An option nobody declared, a value given to a switch, or a positional argument where none is taken. */
  | { kind: "unknown"; arg: string }
  /** A declared option with no value, or followed by another option (`--reason --json`). */
  | { kind: "needsValue"; option: string };

/** The first problem in the tokens, or undefined when every argument is one the tool declared. */
export function argProblem(
  tokens: readonly ArgToken[],
  options: Readonly<Record<string, { type: "string" | "boolean" }>>,
  allowPositionals = false,
): ArgProblem | undefined {
  for (const t of tokens) {
    if (t.kind === "positional") {
      if (!allowPositionals) return { kind: "unknown", arg: t.value };
      continue;
    }
    if (t.kind !== "option") continue;
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!spec) return { kind: "unknown", arg: t.rawName };
    if (spec.type === "boolean" && t.value !== undefined)
      return { kind: "unknown", arg: `${t.rawName}=${t.value}` };
    if (
      spec.type === "string" &&
      (t.value === undefined || (!t.inlineValue && t.value.startsWith("--")))
    )
      return { kind: "needsValue", option: t.rawName };
  }
  return undefined;
}
