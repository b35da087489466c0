import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpRequest, type HttpResponseInit, InvocationContext } from "@azure/functions";
import type { Meter } from "@opentelemetry/api";
import { type Clock, createLogger, redact, textLine } from "@quiesce/protocol";
import { loadCoordinatorSettings } from "../config";
import { type Coordinator, createCoordinator } from "../coordinator";
import { ROUTE_PREFIX, ROUTES, type Route } from "../routes";
import type { RetryOptions } from "../store";
import { readTimerSchedule, type TimerSchedule } from "../timerSchedule";
import { type AzuriteHandle, startAzurite } from "./azurite";
import { loadOrCreateLocalKeys } from "./keys";
import { matchRoute } from "./router";
import { type SweepTimer, startSweepTimer } from "./sweepTimer";

/**
 * The embedded coordinator: the very handlers the Functions host runs, served by node:http on
 * the same routes, with the sweep on an interval and (unless given a connection string)
 * Azurite as a child process.
 */

export interface LocalCoordinatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Use this Table Storage instead of starting Azurite. */
  connectionString?: string;
  /** Where Azurite keeps its data; in memory when absent. */
  azuriteLocation?: string;
  /** Where the shared keys are kept (created at first start); fresh keys in memory when absent. */
  keysDir?: string;
  /** Extra QUIESCE_* settings (e.g. QUIESCE_POLICY, QUIESCE_TABLE_PREFIX). */
  settings?: Record<string, string | undefined>;
  clock?: Clock;
  /** Sweep every this many ms instead of at QUIESCE_SWEEP_SCHEDULE's occurrences; 0 disables. */
  sweepIntervalMs?: number;
  retry?: RetryOptions;
  /** Where metrics go (e.g. an OTel SDK MeterProvider's meter); the global meter by default. */
  meter?: Meter;
  /** Where log lines go; silent by default. */
  log?: (level: string, message: string) => void;
}

export interface LocalCoordinator {
  url: string;
  port: number;
  relayKey: string;
  operatorKey: string;
  readerKey: string;
  connectionString: string;
  coordinator: Coordinator;
  stop(): Promise<void>;
}

/** The schedule loadCoordinatorSettings has already found readable. */
function configuredSchedule(text: string): TimerSchedule {
  const read = readTimerSchedule(text);
  if (!read.ok) throw new Error(`QUIESCE_SWEEP_SCHEDULE: ${read.problem}`);
  return read.value;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** Reads at most `cap` bytes: enough for the handler to see an oversized body and refuse it. */
function readCapped(
  req: IncomingMessage,
  cap: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      resolve({ bytes: Buffer.concat(chunks), truncated });
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      chunks.push(chunk);
      total += chunk.length;
      if (total > cap) {
        req.pause();
        finish(true);
      }
    });
    req.on("end", () => finish(false));
    req.on("error", (e) => (done ? undefined : reject(e)));
  });
}

/** How much of an oversized body is read and thrown away so the client can read its 413. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;
const DISCARD_LIMIT_MS = 10_000;

/**
 * The answer to an oversized body (413) is written before the body has been read. Closing the
 * socket then would make the client's kernel see a reset while it still sends, and most clients
 * report the reset instead of the 413 they were sent. So the rest of the body is read and
 * dropped, within a bound (past it, or past the time limit, the connection is cut).
 */
function discardRestOf(req: IncomingMessage): void {
  let discarded = 0;
  const giveUp = setTimeout(() => req.destroy(), DISCARD_LIMIT_MS);
  giveUp.unref();
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) req.destroy();
  });
  req.on("close", () => clearTimeout(giveUp));
  req.resume();
}

async function writeResponse(
  res: ServerResponse,
  init: HttpResponseInit,
  close: boolean,
): Promise<void> {
  const headers = new Headers(init.headers as ConstructorParameters<typeof Headers>[0]);
  let body: string | Buffer | undefined;
  if (init.jsonBody !== undefined) {
    body = JSON.stringify(init.jsonBody);
    if (!headers.has("content-type"))
      headers.set("content-type", "application/json; charset=utf-8");
  } else if (typeof init.body === "string") body = init.body;
  else if (init.body instanceof Uint8Array) body = Buffer.from(init.body);
  if (close) headers.set("connection", "close");
  res.statusCode = init.status ?? 200;
  headers.forEach((v, k) => {
    res.setHeader(k, v);
  });
  res.end(body);
}

export async function startLocalCoordinator(
  opts: LocalCoordinatorOptions = {},
): Promise<LocalCoordinator> {
  // Secrets never leave (docs/security.md): a request's stack or a sweep's error is redacted.
  const sink = opts.log ?? (() => undefined);
  const log = (level: string, message: string) => sink(level, redact(message));
  const extra = opts.settings ?? {};
  let azurite: AzuriteHandle | undefined;
  let connectionString = opts.connectionString ?? extra.QUIESCE_STORAGE_CONNECTION_STRING;
  const tableEndpoint = extra.QUIESCE_TABLE_ENDPOINT;
  if (!connectionString && !tableEndpoint) {
    azurite = await startAzurite(opts.azuriteLocation ? { location: opts.azuriteLocation } : {});
    connectionString = azurite.connectionString;
  }
  const keys = opts.keysDir
    ? loadOrCreateLocalKeys(opts.keysDir)
    : {
        relayKey: randomBytes(32).toString("base64url"),
        operatorKey: randomBytes(32).toString("base64url"),
        readerKey: randomBytes(32).toString("base64url"),
      };

  let server: Server | undefined;
  let timer: SweepTimer | undefined;
  let settle: (() => Promise<void>) | undefined;
  const cleanup = async () => {
    await timer?.stop();
    await settle?.(); // hook runs and follow-ups the coordinator started (agentless)
    if (server) {
      const s = server;
      const closed = new Promise<void>((r) => s.close(() => r()));
      s.closeAllConnections(); // keep-alive sockets would otherwise hold close() open
      await closed;
    }
    await azurite?.stop();
  };

  try {
    const settings = loadCoordinatorSettings({
      // Azurite saves to disk every 5 s: list hook states in hooksStored only once they would
      // survive a crash.
      QUIESCE_STORAGE_SETTLE_SECONDS: "6",
      ...extra,
      QUIESCE_STORAGE_CONNECTION_STRING: connectionString,
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: keys.relayKey,
      QUIESCE_OPERATOR_KEY: keys.operatorKey,
      QUIESCE_READER_KEY: keys.readerKey,
    });
    const coordinator: Coordinator = await createCoordinator(settings, {
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.meter ? { meter: opts.meter } : {}),
      // What outlives a request (follow-ups, hook runs, deliveries) to the same log as requests.
      log: createLogger({ level: "trace", sink: (r) => log(r.level, textLine(r)) }),
    });
    settle = () => coordinator.deps.controlPlane.settle();
    const context = (functionName: string) =>
      new InvocationContext({
        invocationId: randomUUID(),
        functionName,
        logHandler: (level, ...args) => log(level, args.map(String).join(" ")),
      });
    // Read a little past the largest body the route accepts, so the handler sees "too large" itself.
    const capOf = (route: Route) =>
      Math.max(route.maxBodyBytes ?? settings.QUIESCE_MAX_BODY_BYTES, 16_384) + 1;

    server = createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://localhost");
        // The host root opens the status page, as a bookmark-friendly address.
        if (url.pathname === "/" && (req.method === "GET" || req.method === "HEAD")) {
          req.resume();
          return writeResponse(res, { status: 302, headers: { location: "/api/ui" } }, false);
        }
        const match = matchRoute(ROUTES, ROUTE_PREFIX, req.method ?? "GET", url.pathname);
        if ("error" in match) {
          const message = {
            400: "malformed path",
            404: "no such route",
            405: "method not allowed",
          }[match.error];
          req.resume();
          return writeResponse(res, { status: match.error, jsonBody: { error: message } }, false);
        }
        const { bytes, truncated } = await readCapped(req, capOf(match.route));
        const method = (req.method ?? "GET").toUpperCase();
        const request = new HttpRequest({
          method,
          url: `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`,
          headers: headersOf(req),
          params: match.params,
          ...(method === "GET" || method === "HEAD" || method === "OPTIONS"
            ? {}
            : { body: { bytes } }),
        });
        const response = await coordinator.handlers[match.route.handler](
          request,
          context(match.route.name),
        );
        if (truncated) discardRestOf(req);
        // Not `connection: close`: Node would close the socket as soon as the answer is out,
        // under a client still sending. The connection stays usable once the body is read.
        await writeResponse(res, response, false);
      })().catch((e: unknown) => {
        log("error", `request failed: ${(e as Error).stack ?? String(e)}`);
        if (!res.headersSent)
          void writeResponse(res, { status: 500, jsonBody: { error: "internal error" } }, true);
        else res.destroy();
      });
    });
    const s = server;
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
    });
    const port = (s.address() as AddressInfo).port;

    const schedule: TimerSchedule | undefined =
      opts.sweepIntervalMs === undefined
        ? configuredSchedule(settings.QUIESCE_SWEEP_SCHEDULE)
        : opts.sweepIntervalMs > 0
          ? { kind: "timeSpan", intervalMs: opts.sweepIntervalMs }
          : undefined;
    if (schedule)
      timer = startSweepTimer({
        schedule,
        sweep: () =>
          coordinator.handlers
            .sweep(context("sweep"))
            .catch((e: unknown) => log("error", `sweep failed: ${(e as Error).message}`)),
        never: () =>
          log(
            "warn",
            `QUIESCE_SWEEP_SCHEDULE ${JSON.stringify(settings.QUIESCE_SWEEP_SCHEDULE)} never fires: no sweep will run`,
          ),
      });
    const host = opts.host ?? "127.0.0.1";
    return {
      url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
      port,
      relayKey: keys.relayKey,
      operatorKey: keys.operatorKey,
      readerKey: keys.readerKey,
      connectionString: connectionString ?? "",
      coordinator,
      stop: cleanup,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
