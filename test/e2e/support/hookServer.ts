import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The operator's drain service for VMs without a relay, on loopback: answers
 * `POST /{drain|recover}/{vmName}` with 200 after `delayMs`, and records each call (what the
 * coordinator sent, when it started and finished) for the tests to check the order of things.
 */
export interface HookCall {
  hook: string;
  vm: string;
  body: unknown;
  startedAt: number;
  finishedAt: number | null;
}

export interface HookServer {
  url: string;
  calls(): HookCall[];
  stop(): Promise<void>;
}

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

export async function startHookServer(delayMs: number): Promise<HookServer> {
  const calls: HookCall[] = [];
  const server = createServer(async (req, res) => {
    const [, hook = "", vm = ""] = (req.url ?? "").split("/");
    const call: HookCall = {
      hook,
      vm: decodeURIComponent(vm),
      body: null,
      startedAt: Date.now(),
      finishedAt: null,
    };
    calls.push(call);
    try {
      call.body = JSON.parse(await read(req));
    } catch {
      call.body = "not JSON";
    }
    setTimeout(() => {
      call.finishedAt = Date.now();
      res.writeHead(200, { "content-type": "text/plain" }).end(`${hook} of ${call.vm} done\n`);
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => [...calls],
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
