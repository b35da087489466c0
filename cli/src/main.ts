#!/usr/bin/env node
import { parseArgs, USAGE } from "./args";
import { renderCluster, renderEventDetail, renderOperatorAnswer, renderStatus } from "./render";
import { StatusApiError, StatusClient } from "./statusClient";

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2), process.env);
  if (!parsed.ok) {
    process.stderr.write(`${parsed.error}\n`);
    return 2;
  }
  const a = parsed.value;
  if (a.command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
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
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(
      `quiesce: ${e instanceof StatusApiError || e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exitCode = 1;
  },
);
