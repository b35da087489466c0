import { randomBytes, randomUUID } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import { HttpRequest, InvocationContext } from "@azure/functions";
import type { RetryOptions } from "@quiesce/functions";
import {
  ClusterStore,
  type Coordinator,
  createCoordinator,
  loadCoordinatorSettings,
  openTables,
  zeroCounts,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";

/** Test doubles that are not doubles: a settable clock, real HttpRequests, real tables. */

export class ManualClock {
  constructor(public t = Date.parse("2026-11-23T05:00:00Z")) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export const uniquePrefix = () => `t${randomBytes(6).toString("hex")}`;

export interface TestCoordinator extends Coordinator {
  relayKey: string;
  operatorKey: string;
  clock: ManualClock;
  prefix: string;
  connectionString: string;
}

export async function testCoordinator(
  connectionString: string,
  opts: { clock?: ManualClock; retry?: RetryOptions; settings?: Record<string, string> } = {},
): Promise<TestCoordinator> {
  const relayKey = randomBytes(24).toString("base64url");
  const operatorKey = randomBytes(24).toString("base64url");
  const prefix = uniquePrefix();
  const settings = loadCoordinatorSettings({
    QUIESCE_STORAGE_CONNECTION_STRING: connectionString,
    QUIESCE_TABLE_PREFIX: prefix,
    QUIESCE_AUTH_MODE: "sharedKey",
    QUIESCE_RELAY_KEY: relayKey,
    QUIESCE_OPERATOR_KEY: operatorKey,
    ...opts.settings,
  });
  const clock = opts.clock ?? new ManualClock();
  const c = await createCoordinator(settings, {
    clock,
    ...(opts.retry ? { retry: opts.retry } : {}),
  });
  return { ...c, relayKey, operatorKey, clock, prefix, connectionString };
}

/** A store on fresh tables (a prefix of its own), created. */
export async function testStore(connectionString: string): Promise<ClusterStore> {
  const totals = zeroCounts();
  const store = new ClusterStore(openTables({ connectionString }, uniquePrefix(), totals), totals);
  await store.init();
  return store;
}

/** Another Function instance of the same deployment: same tables, clock and keys, its own caches. */
export function otherInstance(c: TestCoordinator): Promise<TestCoordinator> {
  return testCoordinator(c.connectionString, {
    clock: c.clock,
    settings: {
      QUIESCE_TABLE_PREFIX: c.prefix,
      QUIESCE_RELAY_KEY: c.relayKey,
      QUIESCE_OPERATOR_KEY: c.operatorKey,
    },
  });
}

export const context = () => new InvocationContext({ logHandler: () => undefined });

export function request(
  method: string,
  path: string,
  opts: {
    key?: string;
    body?: unknown;
    raw?: string;
    params?: Record<string, string>;
    headers?: Record<string, string>;
  } = {},
): HttpRequest {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const text = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (text !== undefined) headers["content-type"] = "application/json";
  return new HttpRequest({
    method,
    url: `http://127.0.0.1/api/${path}`,
    headers,
    ...(opts.params ? { params: opts.params } : {}),
    ...(text !== undefined ? { body: { string: text } } : {}),
  });
}

export async function call(
  handler: (
    r: HttpRequest,
    c: InvocationContext,
  ) => Promise<{ status?: number; jsonBody?: unknown; headers?: unknown }>,
  req: HttpRequest,
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect JSON answers field by field
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await handler(req, context());
  return {
    status: res.status ?? 200,
    body: res.jsonBody,
    headers: new Headers(res.headers as Record<string, string>),
  };
}

export const resourceIdOf = (vm: string) =>
  `/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/${vm}`;

export function freezeEvent(
  resources: string[],
  opts: Partial<ScheduledEvent> = {},
): ScheduledEvent {
  return {
    EventId: opts.EventId ?? randomUUID().toUpperCase(),
    EventType: "Freeze",
    ResourceType: "VirtualMachine",
    Resources: resources,
    EventStatus: "Scheduled",
    // 15 minutes after both the manual clock's start and the real now: tests on the local host's
    // real clock must not find NotBefore already passed.
    NotBefore: new Date(
      Math.max(Date.now(), Date.parse("2026-11-23T05:00:00Z")) + 15 * 60_000,
    ).toUTCString(),
    Description:
      "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
    EventSource: "Platform",
    DurationInSeconds: 5,
    ...opts,
  };
}

export function makeReport(
  vm: string,
  opts: {
    cluster?: string;
    incarnation?: number;
    events?: ScheduledEvent[];
    drained?: string[];
    document?: null;
    seq?: number;
    bootId?: string;
    approvals?: RelayReport["approvals"];
  } = {},
): RelayReport {
  const at = new Date(Date.parse("2026-11-23T05:00:00Z")).toISOString();
  return {
    protocol: "1.0",
    cluster: opts.cluster ?? "web",
    vm: { name: vm, vmId: `id-${vm}`.slice(0, 64), resourceId: resourceIdOf(vm) },
    relay: { version: "1.0.0", bootId: opts.bootId ?? "boot-1", seq: opts.seq ?? 1 },
    document:
      opts.document === null
        ? null
        : { DocumentIncarnation: opts.incarnation ?? 1, Events: opts.events ?? [] },
    hooks: (opts.drained ?? []).map((eventId) => ({
      eventId,
      drain: { status: "succeeded" as const, attempt: 1, startedAt: at, finishedAt: at },
    })),
    approvals: opts.approvals ?? [],
    sentAt: at,
  };
}

/** Every entity of the coordinator's four tables, to prove what was (not) written. */
export async function dumpTables(
  connectionString: string,
  prefix: string,
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of ["Members", "Events", "Readiness", "History"]) {
    const client = TableClient.fromConnectionString(connectionString, `${prefix}${t}`, {
      allowInsecureConnection: true,
    });
    const rows: unknown[] = [];
    // The member migration's marker (functions/src/store/memberRows.ts) and the clusters' budget
    // rows (functions/src/store/budget.ts) are bookkeeping, not state.
    for await (const e of client.listEntities())
      if (
        !(t === "Members" && e.partitionKey?.startsWith("~")) &&
        !(t === "Events" && e.rowKey === "%budget")
      )
        rows.push(e);
    out[t] = rows;
  }
  return out;
}

/** POSTs a relay report through the real handler, with the relay key unless told otherwise. */
export const postReport = (c: TestCoordinator, body: unknown, key = c.relayKey) =>
  call(c.handlers.report, request("POST", "relay/report", { key, body }));
