import { Agent, createServer, request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { parseJsonWith } from "@quiesce/protocol";
import { ApproveDirective } from "@quiesce/protocol/relay";
import { z } from "zod";

/**
 * What stands between relays and coordinators on loopback: a report proxy a test can steer (see
 * and drop answers, cut VMs off, act after each answer) and a round-robin front over several
 * coordinator processes, as a load balancer spreads a deployment's instances.
 */

export type AnswerVerdict = "forward" | "drop";

/** A request the proxy forwarded and answered, for `afterAnswer`. */
export interface Forwarded {
  vm: string;
  path: string;
  /** authorization and content-type, as forwarded. */
  headers: Record<string, string>;
  body: Buffer;
  status: number;
}

export interface ReportProxy {
  readonly url: string;
  /** The coordinator's base URL; requests before it is set get 503. */
  target: string | undefined;
  /** Sees every report's VM and the coordinator's parsed answer. */
  onAnswer: ((vm: string, answer: unknown) => AnswerVerdict) | undefined;
  /** Runs once an answer went back to the relay (e.g. to replay the request behind its back). */
  afterAnswer: ((r: Forwarded) => void) | undefined;
  /** Reports from these VMs are cut off before they reach the coordinator. */
  readonly blocked: Set<string>;
  stop(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const Named = z.object({ vm: z.object({ name: z.string() }) });

/** The VM a report names ("" when the body is not a report). */
export function vmOf(body: Buffer): string {
  const r = parseJsonWith(Named, body.toString("utf8"));
  return r.ok ? r.value.vm.name : "";
}

/**
 * A loopback HTTP proxy between the relays and the coordinator. It forwards every request as is,
 * but lets a test look at each report's answer and drop it (the connection is destroyed, as
 * when a VM dies): the coordinator has acted on the report, the relay never hears of it.
 */
export async function startReportProxy(): Promise<ReportProxy> {
  const proxy: Omit<ReportProxy, "url" | "stop"> = {
    target: undefined,
    onAnswer: undefined,
    afterAnswer: undefined,
    blocked: new Set<string>(),
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const vm = vmOf(body);
      if (proxy.blocked.has(vm)) return req.socket.destroy();
      if (!proxy.target) {
        res.writeHead(503, { "retry-after": "1" }).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ["authorization", "content-type"]) {
        const v = req.headers[name];
        if (typeof v === "string") headers[name] = v;
      }
      const path = req.url ?? "/";
      let status: number;
      let text: string;
      let type: string;
      try {
        const answer = await fetch(`${proxy.target.replace(/\/+$/, "")}${path}`, {
          method: req.method ?? "GET",
          headers,
          ...(body.length > 0 ? { body } : {}),
          signal: AbortSignal.timeout(10_000),
        });
        status = answer.status;
        text = await answer.text();
        type = answer.headers.get("content-type") ?? "application/json";
      } catch {
        res.writeHead(502).end();
        return;
      }
      const parsed = parseJsonWith(z.unknown(), text);
      const verdict = proxy.onAnswer?.(vm, parsed.ok ? parsed.value : undefined);
      if (proxy.blocked.has(vm) || verdict === "drop") return req.socket.destroy();
      res.writeHead(status, { "content-type": type }).end(text);
      proxy.afterAnswer?.({ vm, path, headers, body, status });
    })().catch(() => req.socket.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

const Answer = z.object({ directives: z.array(z.unknown()) });

/** The approve directives in a report's answer: event ids and when the lease expires. */
export function approveDirectives(
  answer: unknown,
): Array<{ eventIds: string[]; leaseExpiresAt: string }> {
  const parsed = Answer.safeParse(answer);
  if (!parsed.success) return [];
  return parsed.data.directives.flatMap((d) => {
    const a = ApproveDirective.safeParse(d);
    return a.success ? [{ eventIds: a.data.eventIds, leaseExpiresAt: a.data.leaseExpiresAt }] : [];
  });
}

export interface RoundRobinFront {
  readonly url: string;
  /** Requests sent to each upstream so far, in the order given. */
  readonly counts: number[];
  close(): Promise<void>;
}

/** A streaming front: each request to the next upstream in turn, counted (the 10,000-VM bench). */
export async function startRoundRobinFront(upstreams: string[]): Promise<RoundRobinFront> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const targets = upstreams.map((u) => new URL(u));
  const counts = targets.map(() => 0);
  let next = 0;
  const server = createServer((req, res) => {
    const k = next++ % targets.length;
    counts[k] = (counts[k] ?? 0) + 1;
    const t = targets[k] as URL;
    const up = httpRequest(
      {
        agent,
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
