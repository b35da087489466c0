#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { redact } from "@quiesce/protocol";
import { checkHookCommands, rebalanceNotes } from "./checkConfig";
import { type CliArgs, EXIT, parseCliArgs } from "./cliArgs";
import {
  mergeSettingSources,
  misspelledEnvironment,
  parseConfigFile,
  parseRelaySettings,
  RELAY_SETTING_NAMES,
  type RelaySettings,
  redactSettings,
  SettingsError,
} from "./config";
import { heartbeatFileFor, heartbeatStaleAfterMs, probeHeartbeat } from "./heartbeat";
import { errorText, jsonLogger, writeFatal } from "./log";
import { relayConfigFrom } from "./options";
import { startRelay } from "./relay";
import { RELAY_VERSION } from "./version";

/** The process shell: arguments, settings, signals and exit codes. Everything else is startRelay. */

const HELP = `quiesce-relay ${RELAY_VERSION}: coordinates Azure Scheduled Events for this VM.

Usage: quiesce-relay [--config FILE] [--dry-run] [--check-config | --probe]
       quiesce-relay --version | --help

Options:
  --config FILE    JSON file whose keys are the settings below (environment variables win).
  --dry-run        Everything except the StartRequests POST to IMDS (same as QUIESCE_DRY_RUN=true).
  --check-config   Validate the settings and that the hook commands' programs exist, print
                   the settings (secrets redacted) and exit.
  --probe          Liveness probe: exit ${EXIT.ok} if the relay running with these settings is
                   polling IMDS (its heartbeat file, beside the state file, is fresh), else ${EXIT.failure}.
  --version        Print the version and exit.
  --help           Print this help and exit.

Settings (environment variables or config file keys):
  ${RELAY_SETTING_NAMES.join("\n  ")}

See docs/relay.md for what each one does. Logs are JSON lines on stdout, errors on stderr
(Windows: all on stdout; under systemd: all on stdout, each with its syslog priority).
Exit codes: ${EXIT.ok} stopped cleanly, ${EXIT.failure} fatal error (--probe: not alive), ${EXIT.config} invalid
arguments or settings (the systemd unit does not restart on it: they would fail the same way).
`;

export function settingsFrom(
  args: CliArgs,
  env: Record<string, string | undefined>,
): RelaySettings {
  const file = args.config ?? env.QUIESCE_CONFIG_FILE;
  let content: Record<string, unknown> | undefined;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new SettingsError(`QUIESCE_CONFIG_FILE: cannot read ${file}: ${(e as Error).message}`);
    }
    content = parseConfigFile(text, file);
  }
  const merged = mergeSettingSources(env, content);
  if (file) merged.QUIESCE_CONFIG_FILE = file;
  if (args.dryRun) merged.QUIESCE_DRY_RUN = true;
  return parseRelaySettings(merged, misspelledEnvironment(env));
}

/**
 * --check-config beyond the settings: each hook command's program is there (checkConfig.ts).
 * Returns the exit code: EXIT.config when one is missing, as for a bad setting.
 */
export function checkConfig(
  settings: RelaySettings,
  env: Record<string, string | undefined>,
  write: { out: (text: string) => void; err: (text: string) => void },
): number {
  const config = relayConfigFrom(settings);
  const checks = checkHookCommands(config.hooks.commands, {
    platform: process.platform,
    path: env.PATH ?? env.Path ?? "",
    cwd: process.cwd(),
  });
  for (const note of [...checks.unchecked, ...rebalanceNotes(config)])
    write.err(redact(`quiesce-relay: note: ${note}\n`));
  if (checks.missing.length > 0) {
    write.err(redact(`quiesce-relay: ${checks.missing.join("; ")}\n`));
    return EXIT.config;
  }
  write.out(`${JSON.stringify(redactSettings(settings), null, 2)}\n`);
  return EXIT.ok;
}

/** --probe: the heartbeat of the relay running with these settings (heartbeat.ts). */
export async function probe(
  settings: RelaySettings,
  write: { out: (text: string) => void; err: (text: string) => void },
  now: number = Date.now(),
): Promise<number> {
  const config = relayConfigFrom(settings);
  const r = await probeHeartbeat(
    heartbeatFileFor(config.stateFile),
    heartbeatStaleAfterMs(config.pollIntervalMs),
    now,
  );
  (r.alive ? write.out : write.err)(`quiesce-relay: ${r.text}\n`);
  return r.alive ? EXIT.ok : EXIT.failure;
}

async function main(): Promise<number> {
  let args: CliArgs;
  let settings: RelaySettings;
  try {
    args = parseCliArgs(process.argv.slice(2));
    if (args.help) {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    if (args.version) {
      process.stdout.write(`${RELAY_VERSION}\n`);
      return EXIT.ok;
    }
    settings = settingsFrom(args, process.env);
  } catch (e) {
    writeFatal(redact(`quiesce-relay: ${e instanceof SettingsError ? e.message : errorText(e)}\n`));
    return EXIT.config;
  }
  const streams = {
    out: (t: string) => process.stdout.write(t),
    err: (t: string) => process.stderr.write(t),
  };
  if (args.checkConfig) return checkConfig(settings, process.env, streams);
  if (args.probe) return probe(settings, streams);
  const log = jsonLogger(settings.QUIESCE_LOG_LEVEL);
  const relay = await startRelay(settings, { logger: log });
  return new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        log.warn("second signal: exiting without waiting", { signal: sig });
        resolve(EXIT.failure);
        return;
      }
      log.info("signal received; stopping", { signal: sig });
      relay.stop().then(
        () => resolve(EXIT.ok),
        (e) => {
          log.error("stop failed", { error: errorText(e) });
          resolve(EXIT.failure);
        },
      );
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      writeFatal(redact(`quiesce-relay: fatal: ${errorText(e)}\n`));
      process.exit(EXIT.failure);
    },
  );
}
