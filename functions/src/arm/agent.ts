import { type LazyAgent, pooledAgent } from "../net/undici";

/**
 * One pooled keep-alive undici Agent for the coordinator's outbound control-plane calls (ARM and
 * the HTTP probes), as notify/sinks.ts has for notifications: a Function instance reuses its TLS
 * connections across invocations instead of paying a handshake per call. The connect, header and
 * body timeouts are backstops; each request also carries its own per-attempt deadline. Made, and
 * undici loaded, on the first request (net/undici.ts).
 */
export function createPooledAgent(options?: {
  connections?: number;
  timeoutMs?: number;
}): LazyAgent {
  const timeoutMs = options?.timeoutMs ?? 30_000;
  return pooledAgent({
    connections: options?.connections ?? 16,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connect: { timeout: 5_000 },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}
