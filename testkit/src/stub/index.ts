import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";

/**
 * A scripted HTTP server on 127.0.0.1 for tests of outbound clients (the ARM client, the HTTP
 * probe): each route answers from a queue of canned replies, the last one repeating, and every
 * request is recorded as it arrived. Real sockets, so headers, timeouts and dropped connections
 * behave as they do against a real service.
 */

export interface StubRequest {
  method: string;
  /** The path as sent, still percent-encoded, without the query. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
}

export type StubReply =
  | {
      status: number;
      headers?: Record<string, string>;
      /** A string or bytes (Uint8Array) are sent as they are; anything else as JSON. */
      body?: unknown;
    }
  /** Never answer: the client's timeout has to end the request. */
  | { hang: true }
  /** Destroy the connection without an answer: a network error for the client. */
  | { drop: true };

export type StubScript = StubReply | ((req: StubRequest) => StubReply);

export interface HttpStub {
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: StubRequest[];
  /** Requests to one route (path compared without regard to case, as ARM does). */
  requestsTo(method: string, path: string): StubRequest[];
  /** Replaces a route's replies: answered in order, the last one repeating. */
  on(method: string, path: string, ...replies: StubScript[]): void;
  /** Forgets every route and recorded request. */
  reset(): void;
  stop(): Promise<void>;
}

const key = (method: string, path: string) => `${method.toUpperCase()} ${path.toLowerCase()}`;

export async function startHttpStub(): Promise<HttpStub> {
  const routes = new Map<string, StubScript[]>();
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stub");
      const recorded: StubRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      const queue = routes.get(key(recorded.method, recorded.path));
      const script = queue && (queue.length > 1 ? queue.shift() : queue[0]);
      const reply: StubReply = !script
        ? {
            status: 404,
            body: { error: { code: "StubNoRoute", message: `${recorded.method} ${url.pathname}` } },
          }
        : typeof script === "function"
          ? script(recorded)
          : script;
      if ("hang" in reply) return;
      if ("drop" in reply) return req.socket.destroy();
      const raw = typeof reply.body === "string" || reply.body instanceof Uint8Array;
      const text =
        reply.body === undefined
          ? ""
          : raw
            ? (reply.body as string | Uint8Array)
            : JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...(raw || reply.body === undefined ? {} : { "content-type": "application/json" }),
        ...reply.headers,
      });
      res.end(text);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (method, path) =>
      requests.filter((r) => key(r.method, r.path) === key(method, path)),
    on(method, path, ...replies) {
      routes.set(key(method, path), replies);
    },
    reset() {
      routes.clear();
      requests.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * One stub for a test file: started before its first test, stopped after its last, and reset
 * before each test, so every test scripts its own routes and sees only its own requests.
 */
export function useHttpStub(): HttpStub {
  let current: HttpStub | undefined;
  beforeAll(async () => {
    current = await startHttpStub();
  });
  afterAll(() => current?.stop());
  beforeEach(() => current?.reset());
  const at = (): HttpStub => {
    if (!current) throw new Error("useHttpStub(): the stub starts in beforeAll; use it in a test");
    return current;
  };
  return {
    get url() {
      return at().url;
    },
    get requests() {
      return at().requests;
    },
    requestsTo: (method, path) => at().requestsTo(method, path),
    on: (method, path, ...replies) => at().on(method, path, ...replies),
    reset: () => at().reset(),
    stop: () => at().stop(),
  };
}

/** A TokenCredential stand-in that hands out `token-1`, `token-2`, ... and records what was asked. */
export interface RecordingCredential {
  getToken(
    scopes: string | string[],
  ): Promise<{ token: string; expiresOnTimestamp: number } | null>;
  /** The scopes of every getToken call, oldest first. */
  readonly scopes: (string | string[])[];
  /** The tokens handed out, oldest first. */
  readonly issued: string[];
}

/** `lifetimeMs` is how long each token is valid from now (default an hour); `none` makes it give no token. */
export function recordingCredential(options?: {
  lifetimeMs?: number;
  none?: boolean;
}): RecordingCredential {
  const scopes: (string | string[])[] = [];
  const issued: string[] = [];
  return {
    scopes,
    issued,
    async getToken(scope) {
      scopes.push(scope);
      if (options?.none) return null;
      const token = `token-${issued.length + 1}`;
      issued.push(token);
      return { token, expiresOnTimestamp: Date.now() + (options?.lifetimeMs ?? 3_600_000) };
    },
  };
}
