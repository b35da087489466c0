import { parseArgs } from "node:util";
import { argProblem } from "@quiesce/protocol";
import { SettingsError } from "./config";

/** quiesce-relay's arguments (the help text in cli.ts lists them). */
export interface CliArgs {
  help: boolean;
  version: boolean;
  dryRun: boolean;
  checkConfig: boolean;
  config?: string;
}

const OPTIONS = {
  config: { type: "string" },
  "dry-run": { type: "boolean" },
  "check-config": { type: "boolean" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

/** Throws SettingsError (exit 2) naming an unknown argument or an option missing its value. */
export function parseCliArgs(argv: string[]): CliArgs {
  const { values, tokens } = parseArgs({
    args: argv,
    options: OPTIONS,
    strict: false,
    tokens: true,
  });
  const problem = argProblem(tokens, OPTIONS);
  if (problem?.kind === "needsValue")
    throw new SettingsError(`${problem.option} needs a file path`);
  if (problem) throw new SettingsError(`unknown argument ${problem.arg} (see --help)`);
  return {
    help: values.help === true,
    version: values.version === true,
    dryRun: values["dry-run"] === true,
    checkConfig: values["check-config"] === true,
    ...(typeof values.config === "string" ? { config: values.config } : {}),
  };
}
