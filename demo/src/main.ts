import { join, resolve } from "node:path";
import type { LogLevel } from "@quiesce/protocol";
import { type DemoArgs, parseDemoArgs } from "./args";
import { DEMO_LOG, relayLogLevel, runDemo } from "./run";
import { loadScenario, type Scenario } from "./scenario";

/**
 * `npm start`: the whole system on this machine, no Azure account (run.ts). Exit codes: 0 every
 * story told as written, 1 not (or the demo failed: a port taken, a part that did not start),
 * 2 bad arguments or scenario, 130/143 stopped by a signal. Ctrl-C stops everything; a second
 * Ctrl-C exits at once.
 */

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  let args: DemoArgs | string;
  let scenario: Scenario;
  let relayLevel: LogLevel;
  try {
    const scenarios = join(resolve(__dirname, "..", ".."), "demo", "scenarios");
    args = parseDemoArgs(process.argv.slice(2), {
      scenario: join(scenarios, "default.json"),
      scenarios,
      stay: Boolean(process.stdin.isTTY),
    });
    if (typeof args === "string") {
      out(args);
      return 0;
    }
    scenario = loadScenario(args.scenario);
    relayLevel = relayLogLevel(process.env.QUIESCE_DEMO_RELAY_LOG);
  } catch (e) {
    err(`quiesce demo: ${(e as Error).message}`);
    return 2;
  }
  if (args.timeScale !== undefined) scenario = { ...scenario, timeScale: args.timeScale };

  const stop = new AbortController();
  let signalled: number | null = null;
  const onSignal = (code: number) => () => {
    if (signalled !== null) process.exit(signalled);
    signalled = code;
    stop.abort();
  };
  process.on("SIGINT", onSignal(130));
  process.on("SIGTERM", onSignal(143));
  const code = await runDemo(args, scenario, {
    say: out,
    fail: err,
    signal: stop.signal,
    logPath: DEMO_LOG,
    relayLogLevel: relayLevel,
  });
  return signalled ?? code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    err(`quiesce demo failed: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  },
);
