import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";

/**
 * A loopback receiver standing in for Teams, Slack and a generic webhook endpoint: what
 * `npm start` prints notifications with, and what the tests assert payloads on. The generic
 * webhook's signature is checked exactly as docs/operations.md tells receivers to.
 */

export type ReceiverSink = "teams" | "slack" | "webhook";

export interface ReceivedMessage {
  sink: ReceiverSink;
  body: unknown;
  headers: Record<string, string>;
  /** Generic webhook only: the HMAC and timestamp checked out. */
  signatureValid?: boolean;
}

export interface WebhookReceiver {
  url(sink: ReceiverSink): string;
  received: ReceivedMessage[];
  stop(): Promise<void>;
}

/** Verifies `x-quiesce-signature` (sha256=HMAC(key, `${timestamp}.${body}`)) within a 5-minute window. */
export function verifySignature(
  key: string,
  headers: Record<string, string | undefined>,
  body: string,
  nowMs = Date.now(),
): boolean {
  const ts = Number(headers["x-quiesce-timestamp"]);
  const given = headers["x-quiesce-signature"] ?? "";
  if (!Number.isInteger(ts) || Math.abs(nowMs / 1000 - ts) > 300) return false;
  const want = `sha256=${createHmac("sha256", key).update(`${ts}.${body}`).digest("hex")}`;
  return given.length === want.length && timingSafeEqual(Buffer.from(given), Buffer.from(want));
}

export async function startWebhookReceiver(opts: {
  /** The generic webhook's HMAC key. */
  secret: string;
  /** The HTTP status to answer (default 200 for Slack, 202 for Teams and the webhook). */
  respond?: (m: ReceivedMessage) => number;
  onMessage?: (m: ReceivedMessage) => void;
  /** Clock for the signature window (tests on a manual clock). */
  now?: () => number;
}): Promise<WebhookReceiver> {
  const received: ReceivedMessage[] = [];
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  };
  const server = createServer((req, res) => {
    void read(req).then((text) => {
      const sink = (req.url ?? "").slice(1) as ReceiverSink;
      if (req.method !== "POST" || !["teams", "slack", "webhook"].includes(sink)) {
        res.writeHead(404).end();
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
      );
      // Any JSON: the receiver keeps what it was sent; tests and the demo read it with their schemas.
      const json = parseJsonWith(z.unknown(), text);
      if (!json.ok) {
        res.writeHead(400).end("invalid JSON");
        return;
      }
      const body = json.value;
      const m: ReceivedMessage = {
        sink,
        body,
        headers,
        ...(sink === "webhook"
          ? { signatureValid: verifySignature(opts.secret, headers, text, opts.now?.()) }
          : {}),
      };
      const status =
        m.signatureValid === false ? 401 : (opts.respond?.(m) ?? (sink === "slack" ? 200 : 202));
      if (status < 300) {
        received.push(m);
        opts.onMessage?.(m);
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (sink) => `http://127.0.0.1:${port}/${sink}`,
    received,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
