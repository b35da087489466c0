import { join } from "node:path";
import { parseArgs } from "node:util";
import { BooleanText, redact } from "@quiesce/protocol";
import { startLocalCoordinator } from "./server";

/**
 * `npm run coordinator`: the coordinator alone on this machine. Azurite keeps its data under .quiesce/azurite
 * (unless QUIESCE_STORAGE_CONNECTION_STRING or QUIESCE_TABLE_ENDPOINT points elsewhere), the
 * shared keys live in .quiesce/local-keys.json, and Ctrl-C stops everything.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: process.env.PORT ?? "7071" },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string", default: ".quiesce" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: npm run coordinator -- [--port 7071] [--host 127.0.0.1] [--data .quiesce]\n" +
        "Other settings come from QUIESCE_* environment variables (docs/coordinator.md).\n",
    );
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: not a port: ${values.port}`);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k.startsWith("QUIESCE_")),
  );
  // The settings themselves are checked by startLocalCoordinator; an unreadable word is not debug.
  const debug = BooleanText.safeParse(env.QUIESCE_DEBUG).data === true;
  const local = await startLocalCoordinator({
    port,
    host: values.host,
    keysDir: values.data,
    azuriteLocation: join(values.data, "azurite"),
    settings: env,
    log: (level, message) => {
      if (level === "debug" && !debug) return;
      if (level === "trace") return;
      process.stderr.write(`${new Date().toISOString()} ${level} ${message}\n`);
    },
  });
  const storage =
    env.QUIESCE_STORAGE_CONNECTION_STRING || env.QUIESCE_TABLE_ENDPOINT
      ? "the configured Table Storage"
      : `Azurite (data in ${join(values.data, "azurite")})`;
  process.stdout.write(
    [
      `Quiesce coordinator listening on ${local.url}, state in ${storage}`,
      "",
      `Page:     ${local.url}/api/ui   (sign in with the operator key, or the read-only reader key ${local.readerKey})`,
      `Status:   curl -H "Authorization: Bearer ${local.operatorKey}" ${local.url}/api/status`,
      `Operator: curl -X POST -H "Authorization: Bearer ${local.operatorKey}" -H "Content-Type: application/json" \\`,
      `            -d '{"reason":"change freeze","ttlMinutes":60}' ${local.url}/api/events/<EventId>/hold`,
      "",
      "Relay settings:",
      `  QUIESCE_COORDINATOR_URL=${local.url}`,
      "  QUIESCE_CLUSTER=<your cluster name>",
      "  QUIESCE_AUTH_MODE=sharedKey",
      `  QUIESCE_RELAY_KEY=${local.relayKey}`,
      "",
      `Keys are kept in ${join(values.data, "local-keys.json")}; delete it to rotate them. Ctrl-C stops.`,
      "",
    ].join("\n"),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping coordinator and Azurite...\n`);
    local.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(redact(`stop failed: ${(e as Error).message}\n`));
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((e: unknown) => {
  process.stderr.write(redact(`${(e as Error).message}\n`));
  process.exit(1);
});
