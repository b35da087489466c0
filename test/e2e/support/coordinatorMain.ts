import { startLocalCoordinator } from "@quiesce/functions";

/**
 * One coordinator instance as its own process, for the chaos tests to SIGKILL: the local host
 * (the Function app's handlers behind node:http, sweeping every 500 ms) against the Azurite the
 * test runs. Prints one JSON line {url} once it listens. Settings come from QUIESCE_* variables.
 */
async function main() {
  const connectionString = process.env.CHAOS_CONNECTION_STRING;
  const keysDir = process.env.CHAOS_KEYS_DIR;
  if (!connectionString || !keysDir) throw new Error("run by test/e2e/support/chaos.ts");
  const settings = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k.startsWith("QUIESCE_")),
  );
  const local = await startLocalCoordinator({
    port: Number(process.env.CHAOS_PORT ?? 0),
    connectionString,
    keysDir,
    settings,
    sweepIntervalMs: 500,
  });
  process.stdout.write(`${JSON.stringify({ url: local.url })}\n`);
  process.on("SIGTERM", () => void local.stop().then(() => process.exit(0)));
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
