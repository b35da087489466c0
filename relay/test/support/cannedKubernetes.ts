import type { IncomingMessage, ServerResponse } from "node:http";
import { LoopbackServer } from "./loopbackServer";

/**
 * A loopback Kubernetes API server that answers each request with a canned body: for the cases
 * the fabric simulator cannot make (two Node objects of one VM) and for serving the contract
 * fixtures' bodies (test/contracts/kubernetes.test.ts). It records every request it received.
 */

export interface CannedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

export interface CannedAnswer {
  status: number;
  body: unknown;
}

/** Answers by `METHOD /path` (no query); 404 with a Status body for anything else. */
export class CannedKubernetes extends LoopbackServer {
  readonly requests: CannedRequest[] = [];

  constructor(
    private readonly answers: Record<string, CannedAnswer | ((r: CannedRequest) => CannedAnswer)>,
  ) {
    super();
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://kubernetes");
      const r: CannedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        contentType: req.headers["content-type"],
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      this.requests.push(r);
      const canned = this.answers[`${r.method} ${r.path}`];
      const answer = typeof canned === "function" ? canned(r) : canned;
      const { status, body } = answer ?? {
        status: 404,
        body: {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          reason: "NotFound",
          code: 404,
        },
      };
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  }
}
