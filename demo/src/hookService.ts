import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An appliance's drain service, on loopback: what an operator puts behind the `agentless` policy's
 * hook URLs for VMs where no relay can run. Answers `POST /{drain|recover}/{vmName}` with 200
 * after `delayMs` (per hook), and records each call (what the coordinator sent, when it started
 * and finished): the demo's agentless groups use it, and the tests check the order of things.
 */
export interface HookCall {
  hook: string;
  vm: string;
  body: unknown;
  startedAt: number;
  finishedAt: number | null;
}

export interface HookService {
  url: string;
  calls(): HookCall[];
  stop(): Promise<void>;
}

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

export async function startHookService(
  delayMs: number | { drain: number; recover: number },
  onCall?: (call: HookCall) => void,
): Promise<HookService> {
  const wait = (hook: string) =>
    typeof delayMs === "number" ? delayMs : hook === "recover" ? delayMs.recover : delayMs.drain;
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
    onCall?.(call);
    try {
      call.body = JSON.parse(await read(req));
    } catch {
      call.body = "not JSON";
    }
    setTimeout(() => {
      call.finishedAt = Date.now();
      res.writeHead(200, { "content-type": "text/plain" }).end(`${hook} of ${call.vm} done\n`);
    }, wait(hook));
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
