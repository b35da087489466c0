#!/usr/bin/env node
import { addSecrets, redact } from "@quiesce/protocol";
import { CREDENTIAL_SOURCES, parseArgs, USAGE, USAGE_LINE } from "./args";
import { renderCluster, renderEventDetail, renderOperatorAnswer, renderStatus } from "./render";
import { StatusApiError, StatusClient } from "./statusClient";
import { CLI_VERSION } from "./version";

/**
 * The `quiesce` command, with the conventions scripts rely on: the answer alone on stdout (text,
 * or the API's JSON with --json), so it can be piped and parsed; every error on stderr, prefixed
 * "quiesce:", naming the URL and the cause, never the credential; exit status 0 done, 1 the
 * coordinator could not be reached, refused or answered unreadably, 2 usage (see USAGE).
 */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2), process.env);
  if (!parsed.ok) {
    process.stderr.write(redact(`quiesce: ${parsed.error}\n${USAGE_LINE}\n`));
    return EXIT.usage;
  }
  const a = parsed.value;
  if (a.command === "help" || a.command === "version") {
    process.stdout.write(`${a.command === "help" ? USAGE : CLI_VERSION}\n`);
    return EXIT.ok;
  }
  // Known from here on: an error that quotes the key (a coordinator or a proxy echoing it back)
  // is printed with it replaced.
  addSecrets([a.key]);
  const client = new StatusClient(a.url, a.key);
  const print = (value: unknown, text: () => string) =>
    process.stdout.write(`${a.json ? JSON.stringify(value, null, 2) : text()}\n`);
  switch (a.command) {
    case "status": {
      const filter = {
        ...(a.cluster ? { cluster: a.cluster } : {}),
        ...(a.phases ? { phases: a.phases } : {}),
        ...(a.state ? { state: a.state } : {}),
        ...(a.limit ? { limit: a.limit } : {}),
      };
      const s = a.all
        ? await client.statusAll(filter)
        : await client.status({
            ...filter,
            ...(a.continuation ? { continuation: a.continuation } : {}),
          });
      print(s, () => renderStatus(s));
      break;
    }
    case "cluster": {
      const c = a.all
        ? await client.clusterAll(a.target, a.limit)
        : await client.cluster(a.target, {
            ...(a.limit ? { limit: a.limit } : {}),
            ...(a.continuation ? { continuation: a.continuation } : {}),
          });
      print(c, () => renderCluster(c).join("\n"));
      break;
    }
    case "event": {
      const d = await client.event(a.target, a.cluster);
      print(d, () => renderEventDetail(d));
      break;
    }
    default: {
      const body = {
        reason: a.reason,
        ...(a.cluster ? { cluster: a.cluster } : {}),
        ...(a.ttlMinutes ? { ttlMinutes: a.ttlMinutes } : {}),
        ...(a.command === "force-gate" ? { gate: a.gate } : {}),
        ...("replace" in a && a.replace ? { replace: true } : {}),
      };
      const r = await client.operator(a.command, a.target, body);
      print(r, () => renderOperatorAnswer(a.command, a.target, r));
    }
  }
  return EXIT.ok;
}

// A reader that stops early (`quiesce status | head -1`) is no error of ours: stop quietly.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code !== "EPIPE") throw e;
  process.exit(process.exitCode ?? EXIT.ok);
});

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const hint =
      e instanceof StatusApiError && e.status === 401
        ? ` (check the credential: ${CREDENTIAL_SOURCES})`
        : "";
    process.stderr.write(redact(`quiesce: ${e instanceof Error ? e.message : String(e)}${hint}\n`));
    process.exitCode = EXIT.failure;
  },
);
