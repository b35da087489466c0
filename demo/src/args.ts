import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { argProblem } from "@quiesce/protocol";

export const USAGE = `npm start [-- --scenario NAME|FILE] [--time-scale N] [--port N] [--exit | --stay]

  --scenario NAME   play demo/scenarios/NAME.json (default, control-plane, drain-failure, maintenance-windows)
  --scenario FILE   play this scenario file (default: demo/scenarios/default.json; format in README)
  --time-scale N    simulated seconds per real second (overrides the scenario's)
  --port N          coordinator port (default 7071; 0 picks a free one)
  --exit            exit after the summary (default when stdin is not a terminal)
  --stay            keep everything running after the summary until Ctrl-C
  -h, --help        this text

  QUIESCE_DEMO_RELAY_LOG=LEVEL  the relays' records in .quiesce/demo.log from LEVEL (default warn)

Exits 0 when every story was told as written, 1 when one was not or the demo failed (a port in
use, a part that did not start), 2 on a bad argument or scenario.`;

export interface DemoArgs {
  scenario: string;
  timeScale?: number;
  port: number;
  stay: boolean;
}

const OPTIONS = {
  scenario: { type: "string" },
  "time-scale": { type: "string" },
  port: { type: "string" },
  exit: { type: "boolean" },
  stay: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** A scenario's name (a file of demo/scenarios without `.json`) rather than a path. */
const SCENARIO_NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The demo's arguments; the usage text when asked for help. Throws naming an unknown argument,
 * an option missing its value, or a number that is not one. Of --exit and --stay the last wins.
 * `--scenario` takes a name of `defaults.scenarios` (the shipped scenarios) or a file.
 */
export function parseDemoArgs(
  argv: string[],
  defaults: { scenario: string; scenarios: string; stay: boolean },
): DemoArgs | string {
  const { values, tokens } = parseArgs({
    args: argv,
    options: OPTIONS,
    strict: false,
    tokens: true,
  });
  if (values.help === true) return USAGE;
  const problem = argProblem(tokens, OPTIONS);
  if (problem?.kind === "needsValue") throw new Error(`${problem.option} needs a value`);
  if (problem) throw new Error(`unknown argument ${problem.arg}\n\n${USAGE}`);
  const number = (flag: keyof typeof OPTIONS): number | undefined => {
    const v = values[flag];
    if (typeof v !== "string") return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0)
      throw new Error(`--${flag} needs a non-negative number, got "${v}"`);
    return n;
  };
  const lastOfExitOrStay = tokens.findLast(
    (t) => t.kind === "option" && (t.name === "exit" || t.name === "stay"),
  );
  const timeScale = number("time-scale");
  const port = number("port") ?? 7071;
  if (!Number.isInteger(port) || port > 65_535)
    throw new Error(`--port needs a port number (0-65535), got "${values.port}"`);
  return {
    scenario:
      typeof values.scenario !== "string"
        ? defaults.scenario
        : SCENARIO_NAME.test(values.scenario)
          ? join(defaults.scenarios, `${values.scenario}.json`)
          : resolve(values.scenario),
    ...(timeScale !== undefined ? { timeScale } : {}),
    port,
    stay: lastOfExitOrStay?.kind === "option" ? lastOfExitOrStay.name === "stay" : defaults.stay,
  };
}
