import { readFileSync } from "node:fs";
import { join } from "node:path";
import { armCall } from "@quiesce/fabric-simulator";
import {
  parseResourceGraphPage,
  RESOURCE_GRAPH_API_VERSION,
  resourceGraphRequest,
  SCHEDULED_EVENTS_QUERY,
} from "@quiesce/protocol/published";
import { useContractSim } from "@quiesce/testkit/arm";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ArmClient, createArmClient } from "../../functions/src/arm/client";
import {
  parseQuotaResetsAfter,
  queryScheduledEvents,
  RESOURCE_GRAPH_PATH,
} from "../../functions/src/arm/resourceGraph";
import { missingPaths } from "./armShape";

/**
 * Azure Resource Graph's `Resources` operation (the backstop's read) against Azure's own
 * artifacts (fixtures/resource-graph/SOURCES.md): the REST spec's request and response
 * definitions and its paging examples, the documented throttling headers, and the documented
 * `maintenanceresources` query for scheduled events. The product's client and parser are served
 * the examples from a loopback server; the simulator's answers are held to the same definitions,
 * so neither can drift from Azure with the other.
 */

const dir = join(__dirname, "fixtures", "resource-graph");
const read = (f: string) => readFileSync(join(dir, f), "utf8");
type Schema = {
  properties?: Record<string, Schema>;
  required?: string[];
  type?: string;
  $ref?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
};
const spec = JSON.parse(read("resourcegraph.2022-10-01.excerpt.json")) as {
  definitions: Record<string, Schema>;
};
const def = (name: string) => spec.definitions[name] as Schema;
interface Example {
  parameters: { "api-version": string; query: Record<string, unknown> };
  responses: { "200": { body: Record<string, unknown> & { $skipToken: string } } };
}
const first = JSON.parse(read("ResourcesFirstPageQuery.json")) as Example;
const next = JSON.parse(read("ResourcesNextPageQuery.json")) as Example;
const throttling = read("guidance-for-throttled-requests.excerpt.md");
const documented = read("scheduled-events-resource-graph.excerpt.md");

/** What a value breaks of a definition: unknown or missing properties, types, enums, bounds. */
function problems(name: string, value: unknown, at = "$"): string[] {
  const d = def(name);
  if (typeof value !== "object" || value === null) return [`${at}: not an object`];
  const v = value as Record<string, unknown>;
  const out = (d.required ?? []).filter((k) => !(k in v)).map((k) => `${at}.${k}: missing`);
  for (const [k, x] of Object.entries(v)) {
    const p = d.properties?.[k];
    if (!p) {
      out.push(`${at}.${k}: not in ${name}`);
      continue;
    }
    if (p.$ref) out.push(...problems(p.$ref.split("/").at(-1) as string, x, `${at}.${k}`));
    else if (p.type === "integer" && !Number.isInteger(x)) out.push(`${at}.${k}: not an integer`);
    else if (p.type === "string" && typeof x !== "string") out.push(`${at}.${k}: not a string`);
    else if (p.type === "array" && !Array.isArray(x)) out.push(`${at}.${k}: not an array`);
    if (p.enum && !p.enum.includes(x as string)) out.push(`${at}.${k}: ${x} not in the enum`);
    if (p.minimum !== undefined && (x as number) < p.minimum) out.push(`${at}.${k}: below minimum`);
    if (p.maximum !== undefined && (x as number) > p.maximum) out.push(`${at}.${k}: above maximum`);
  }
  return out;
}

/** The documented example's values: `x-ms-user-quota-remaining: 10` … `resets-after: 00:00:03`. */
const documentedHeader = (name: string) =>
  new RegExp(`\`${name}: ([^\`]+)\``).exec(throttling)?.[1] as string;

describe("the product's request is the spec's QueryRequest", () => {
  it("uses the examples' api-version", () => {
    expect(first.parameters["api-version"]).toBe(RESOURCE_GRAPH_API_VERSION);
    expect(next.parameters["api-version"]).toBe(RESOURCE_GRAPH_API_VERSION);
  });

  it("sends only properties the spec defines, within its bounds, on both pages", () => {
    expect(problems("QueryRequest", first.parameters.query)).toEqual([]); // the check itself
    expect(problems("QueryRequest", resourceGraphRequest(["s-1"]))).toEqual([]);
    expect(problems("QueryRequest", resourceGraphRequest(["s-1"], { skipToken: "t" }))).toEqual([]);
    expect(problems("QueryRequest", resourceGraphRequest(["s-1"], { top: 1001 }))).toEqual([
      "$.options.$top: above maximum",
    ]);
  });

  it("queries the table and type Microsoft documents for scheduled events", () => {
    const table = /```kusto\s+(\w+)\s*\|\s*where type == "([^"]+)"/.exec(documented);
    expect(table?.[1]).toBe("maintenanceresources");
    // KQL table names are matched as written; the type with =~, which is == without regard to case.
    const ours = /^(\w+) \| where type =~ '([^']+)'/.exec(SCHEDULED_EVENTS_QUERY);
    expect(ours?.[1]).toBe(table?.[1]);
    expect(ours?.[2]).toBe(table?.[2]);
    expect(documented).toContain("with type `microsoft.maintenance/scheduledevents`");
  });
});

describe("the product's client reads the spec's examples, served from a loopback server", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
  });
  afterEach(() => arm.close());

  const quota = {
    "x-ms-user-quota-remaining": documentedHeader("x-ms-user-quota-remaining"),
    "x-ms-user-quota-resets-after": documentedHeader("x-ms-user-quota-resets-after"),
  };

  it("parses the example pages: other resource types ignored, $skipToken passed on as given, the quota headers read", async () => {
    stub.on(
      "POST",
      RESOURCE_GRAPH_PATH,
      { status: 200, headers: quota, body: first.responses["200"].body },
      { status: 200, headers: quota, body: next.responses["200"].body },
    );
    const r = await queryScheduledEvents(arm, ["cfbbd179-59d2-4052-aa06-9270a38aa9d6"], {
      maxPages: 2,
    });
    expect(r).toMatchObject({
      ok: true,
      value: {
        observations: [],
        ignored: 6,
        problems: [],
        pages: 2,
        truncated: true, // the next page's $skipToken is left for the next run
        quotaRemaining: 10,
        quotaResetsAfterMs: 3000,
      },
    });
    const [one, two] = stub.requests.map((q) => JSON.parse(q.body) as Record<string, unknown>);
    expect(stub.requests[0]?.query["api-version"]).toBe(RESOURCE_GRAPH_API_VERSION);
    expect(one).not.toHaveProperty("options.$skipToken");
    // The next page is asked for as the spec's "Next page query" example asks: its token verbatim.
    expect(two).toHaveProperty(
      ["options", "$skipToken"],
      (next.parameters.query.options as Record<string, unknown>).$skipToken,
    );
  });

  it("stops when the documented remaining quota is 0, leaving the rest for the next run", async () => {
    stub.on("POST", RESOURCE_GRAPH_PATH, {
      status: 200,
      headers: { ...quota, "x-ms-user-quota-remaining": "0" },
      body: first.responses["200"].body,
    });
    const r = await queryScheduledEvents(arm, ["cfbbd179-59d2-4052-aa06-9270a38aa9d6"]);
    expect(r).toMatchObject({ ok: true, value: { pages: 1, truncated: true, quotaRemaining: 0 } });
    expect(stub.requests).toHaveLength(1);
  });

  it("reads resets-after in the documented hh:mm:ss form", () => {
    expect(parseQuotaResetsAfter(quota["x-ms-user-quota-resets-after"])).toBe(3000);
    expect(parseQuotaResetsAfter("00:00:05")).toBe(5000);
  });

  it("takes every example body for a QueryResponse (the parser's schema is no stricter than the spec's)", () => {
    for (const body of [first.responses["200"].body, next.responses["200"].body]) {
      expect(problems("QueryResponse", body)).toEqual([]);
      expect(parseResourceGraphPage(body).ok).toBe(true);
    }
  });
});

describe("the simulator's Resource Graph answers as the spec defines", () => {
  const ctx = useContractSim();
  const post = (body: unknown) =>
    armCall(
      ctx.sim.armUrl,
      ctx.token,
      "POST",
      `${RESOURCE_GRAPH_PATH}?api-version=${RESOURCE_GRAPH_API_VERSION}`,
      { body },
    );
  const sub = () => ctx.sim.state().topology.subscriptionId;

  it("answers the product's query with a QueryResponse shaped like the examples, and the documented quota headers", async () => {
    const r = await post(resourceGraphRequest([sub()], { top: 1 }));
    expect(r.status).toBe(200);
    expect(problems("QueryResponse", r.body)).toEqual([]);
    // `$skipToken` only "when present": there is no next page of this answer.
    const { $skipToken: _next, ...shape } = { ...first.responses["200"].body, data: [] };
    expect(missingPaths(shape, r.body)).toEqual([]);
    expect(r.headers.get("x-ms-user-quota-remaining")).toMatch(/^\d+$/);
    expect(r.headers.get("x-ms-user-quota-resets-after")).toMatch(/^\d\d:\d\d:\d\d$/);
  });

  it("accepts the options of the spec's first-page example ($top with $skip) for the product's query", async () => {
    const options = first.parameters.query.options as Record<string, unknown>;
    const r = await post({ ...resourceGraphRequest([sub()]), options });
    expect(r.status).toBe(200);
    expect(problems("QueryResponse", r.body)).toEqual([]);
  });

  it("refuses what it cannot run with the spec's ErrorResponse", async () => {
    const bad = await post({ subscriptions: [sub()], query: first.parameters.query.query });
    expect(bad.status).toBe(400);
    expect(problems("ErrorResponse", bad.body)).toEqual([]);
    expect(bad.headers.get("x-ms-user-quota-remaining")).toMatch(/^\d+$/);
  });
});
