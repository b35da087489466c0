import { parseArgs } from "node:util";
import { argProblem } from "@quiesce/protocol";
import { SettingsError } from "./config";

/**
 * quiesce-relay's exit codes (the help text in cli.ts and docs/relay.md list them). The service
 * managers act on them: the systemd unit's RestartPreventExitStatus= and run-relay.ps1 stop
 * restarting on `config` (relay/test/packaging.test.ts and serviceManagers.test.ts read it here).
 */
export const EXIT = {
  /** Stopped by a signal after a clean stop; --help, --version, --check-config, --probe passed. */
  ok: 0,
  /** A fatal error, a second signal, a failed stop; or --probe found the relay's loop not alive. */
  failure: 1,
  /** Invalid arguments or settings (or a hook's program missing, for --check-config): a restart
   * with the same settings fails the same way. */
  config: 2,
} as const;

/** quiesce-relay's arguments (the help text in cli.ts lists them). */
export interface CliArgs {
  help: boolean;
  version: boolean;
  dryRun: boolean;
  checkConfig: boolean;
  probe: boolean;
  config?: string;
}

const OPTIONS = {
  config: { type: "string" },
  "dry-run": { type: "boolean" },
  "check-config": { type: "boolean" },
  probe: { type: "boolean" },
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
    probe: values.probe === true,
    ...(typeof values.config === "string" ? { config: values.config } : {}),
  };
}
