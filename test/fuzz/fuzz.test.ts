import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { HttpRequest } from "@azure/functions";
import { matchRoute, ROUTE_PREFIX, ROUTES } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  context,
  dumpTables,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FuzzRequest, request } from "./requests";

/**
 * The coordinator as an attacker or a fuzzer meets it: generated requests through the local
 * host's router and the real handlers, on Azurite. Whatever comes in: never a 5xx, a refused
 * request writes nothing, and what was accepted leaves no orphan row. `npm test` runs a
 * seed-stable sample; `npm run fuzz` runs QUIESCE_FUZZ_RUNS (10,000) and records the counts in
 * bench/results/fuzz.{json,md}.
 */

const azurite = useAzurite();
const RUNS = Number(process.env.QUIESCE_FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.QUIESCE_FUZZ_SEED ?? 20261123);
const REPORT = process.env.QUIESCE_FUZZ_REPORT;

interface Counts {
  requests: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  writesOnRefused: number;
  acceptedReports: number;
  orphanRows: number;
}

function authorization(c: TestCoordinator, r: FuzzRequest): Record<string, string> {
  const cred =
    r.credential === "right" ? (r.path.includes("/relay/") ? "relay" : "operator") : r.credential;
  switch (cred) {
    case "relay":
      return { authorization: `Bearer ${c.relayKey}` };
    case "operator":
      return { authorization: `Bearer ${c.operatorKey}` };
    case "wrong":
      return { authorization: "Bearer not-the-key-0123456789" };
    case "basic":
      return { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` };
    default:
      return {};
  }
}

async function send(c: TestCoordinator, r: FuzzRequest): Promise<number> {
  const url = new URL(r.path, "http://127.0.0.1");
  const match = matchRoute(ROUTES, ROUTE_PREFIX, r.method, url.pathname);
  if ("error" in match) return match.error;
  const req = new HttpRequest({
    method: r.method,
    url: url.toString(),
    headers: { ...authorization(c, r), "content-type": "application/json" },
    params: match.params,
    ...(r.body !== undefined ? { body: { string: r.body } } : {}),
  });
  const res = await c.handlers[match.route.handler](req, context());
  return res.status ?? 200;
}

async function orphanRows(c: TestCoordinator): Promise<number> {
  const t = await dumpTables(c.connectionString, c.prefix);
  const events = new Set(
    (t.Events as { partitionKey: string; rowKey: string }[]).map(
      (e) => `${e.partitionKey}|${e.rowKey}`,
    ),
  );
  return (t.Readiness as { partitionKey: string }[]).filter((r) => !events.has(r.partitionKey))
    .length;
}

function record(counts: Counts, seconds: number): void {
  if (!REPORT) return;
  const file = resolve(REPORT);
  mkdirSync(dirname(file), { recursive: true });
  const at = new Date().toISOString();
  writeFileSync(file, `${JSON.stringify({ at, seed: SEED, seconds, ...counts }, null, 2)}\n`);
  const statuses = Object.entries(counts.byStatus)
    .sort()
    .map(([s, n]) => `${s}: ${n}`)
    .join(", ");
  writeFileSync(
    file.replace(/\.json$/, ".md"),
    [
      `# Fuzz run (${at}, \`npm run fuzz\`, seed ${SEED}, ${seconds.toFixed(0)} s)`,
      "",
      "| Figure | Result |",
      "| --- | --- |",
      `| requests (reports, status, cluster, event, operator, other routes) | ${counts.requests} |`,
      `| answers by status | ${statuses} |`,
      `| 5xx answers | ${counts.serverErrors} |`,
      `| table writes by refused (4xx) requests | ${counts.writesOnRefused} |`,
      `| accepted reports | ${counts.acceptedReports} |`,
      `| orphan readiness rows after the run | ${counts.orphanRows} |`,
      "",
    ].join("\n"),
  );
}

describe("fuzzing the coordinator's HTTP surface", () => {
  it(`never answers 5xx, writes nothing for refused input and leaves no orphan row (${RUNS} requests)`, async () => {
    const c = await testCoordinator(azurite().connectionString, { retry: { maxAttempts: 8 } });
    const counts: Counts = {
      requests: 0,
      byStatus: {},
      serverErrors: 0,
      writesOnRefused: 0,
      acceptedReports: 0,
      orphanRows: 0,
    };
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const before = c.deps.store.stats().writes;
        const status = await send(c, r);
        const writes = c.deps.store.stats().writes - before;
        counts.requests++;
        counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
        if (status >= 500) counts.serverErrors++;
        if (status >= 400) counts.writesOnRefused += writes;
        if (status === 200 && r.path === "/api/relay/report") counts.acceptedReports++;
        expect(status, `${r.method} ${r.path}`).toBeLessThan(500);
        if (status >= 400) expect(writes, `${r.method} ${r.path} → ${status}`).toBe(0);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    counts.orphanRows = await orphanRows(c);
    record(counts, (Date.now() - started) / 1000);
    expect(counts.orphanRows).toBe(0);
    expect(counts.acceptedReports).toBeGreaterThan(RUNS / 20); // the sample reaches real state
  }, 900_000);
});
