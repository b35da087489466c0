import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { sendJson } from "./io";

export interface Listener {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * One HTTP listener for a handler; an unexpected error answers 500 (or drops the connection when
 * the answer had begun). Port 0 picks a free port. With `tls` it speaks HTTPS (the Kubernetes
 * stand-in, whose clients check the API server's certificate against a CA file).
 */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  host: string,
  port: number,
  tls?: { readonly cert: string; readonly key: string },
): Promise<Listener> {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `simulator error: ${String(err)}` });
      else res.destroy();
    });
  };
  const server: Server = tls ? createTlsServer(tls, onRequest) : createServer(onRequest);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    port: actual,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
