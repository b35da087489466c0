import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Answer } from "./changes";

/** The most of an answer's body the publisher reads (a validation response is tiny). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs to one webhook over its own connection pool, so stopping the publisher closes every
 * socket it opened (no keep-alive connection outlives it) and aborts whatever is in flight.
 */
export class WebhookPoster {
  private readonly agent: HttpAgent;
  private readonly inflight = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly timeoutMs: number,
  ) {
    this.agent =
      url.protocol === "https:"
        ? new HttpsAgent({ keepAlive: true, maxSockets: 2 })
        : new HttpAgent({ keepAlive: true, maxSockets: 2 });
  }

  post(body: string, headers: Record<string, string>): Promise<Answer> {
    if (this.closed) return Promise.resolve({ error: "publisher stopped" });
    const send = this.url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Answer>((resolve) => {
      let done = false;
      const finish = (answer: Answer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.inflight.delete(abort);
        resolve(answer);
      };
      const req = send(this.url, {
        method: "POST",
        agent: this.agent,
        headers: {
          ...headers,
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
        },
      });
      const abort = () => {
        req.destroy();
        finish({ error: "publisher stopped" });
      };
      const timer = setTimeout(() => {
        req.destroy();
        finish({ error: `no answer within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      this.inflight.add(abort);
      req.on("error", (e) => finish({ error: e.message }));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(c);
        });
        res.on("end", () =>
          finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", (e) => finish({ error: e.message }));
      });
      req.end(body);
    });
  }

  /** Abort what is in flight and close every connection. */
  close(): void {
    this.closed = true;
    for (const abort of [...this.inflight]) abort();
    this.agent.destroy();
  }
}
