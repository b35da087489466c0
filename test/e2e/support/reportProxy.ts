import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy between the relays and the coordinator. It forwards every request as is,
 * but lets a test look at each report's answer and drop it (the connection is destroyed, as
 * when a VM dies): the coordinator has acted on the report, the relay never hears of it.
 */

export type AnswerVerdict = "forward" | "drop";

export interface ReportProxy {
  readonly url: string;
  /** The coordinator's base URL; requests before it is set get 503. */
  target: string | undefined;
  /** Sees every report's VM and the coordinator's parsed answer. */
  onAnswer: ((vm: string, answer: unknown) => AnswerVerdict) | undefined;
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

function vmOf(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { vm?: { name?: unknown } };
    return typeof parsed.vm?.name === "string" ? parsed.vm.name : "";
  } catch {
    return "";
  }
}

export async function startReportProxy(): Promise<ReportProxy> {
  const proxy: Omit<ReportProxy, "url" | "stop"> = {
    target: undefined,
    onAnswer: undefined,
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
      let status: number;
      let text: string;
      let type: string;
      try {
        const answer = await fetch(`${proxy.target.replace(/\/+$/, "")}${req.url ?? "/"}`, {
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
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (proxy.blocked.has(vm) || proxy.onAnswer?.(vm, parsed) === "drop") {
        return req.socket.destroy();
      }
      res.writeHead(status, { "content-type": type }).end(text);
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

/** The approve directives in a report's answer: event ids and when the lease expires. */
export function approveDirectives(
  answer: unknown,
): Array<{ eventIds: string[]; leaseExpiresAt: string }> {
  const directives = (answer as { directives?: unknown } | undefined)?.directives;
  if (!Array.isArray(directives)) return [];
  return directives.flatMap(
    (d: { kind?: unknown; eventIds?: unknown; leaseExpiresAt?: unknown }) =>
      d?.kind === "approve" && Array.isArray(d.eventIds) && typeof d.leaseExpiresAt === "string"
        ? [{ eventIds: d.eventIds as string[], leaseExpiresAt: d.leaseExpiresAt }]
        : [],
  );
}
