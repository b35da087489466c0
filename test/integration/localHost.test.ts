import { request as httpRequest } from "node:http";
import { type LocalCoordinator, startLocalCoordinator } from "@quiesce/functions";
import { type AzuriteHandle, startTestAzurite } from "@quiesce/testkit/azurite";
import { freezeEvent, makeReport, uniquePrefix } from "@quiesce/testkit/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let azurite: AzuriteHandle;
let local: LocalCoordinator;
beforeAll(async () => {
  azurite = await startTestAzurite();
  local = await startLocalCoordinator({
    connectionString: azurite.connectionString,
    settings: { QUIESCE_TABLE_PREFIX: uniquePrefix() },
    sweepIntervalMs: 0,
  });
});
afterAll(async () => {
  await local?.stop();
  await azurite?.stop();
});

const post = (path: string, body: string, key = local.relayKey) =>
  fetch(`${local.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
  });

describe("local host over real sockets", () => {
  it("serves the report handler: 20 relays at once on one event elect exactly one approver", async () => {
    const vms = Array.from({ length: 20 }, (_, i) => `sock-${i}`);
    const ev = freezeEvent(vms);
    const round = () =>
      Promise.all(
        vms.map(async (vm) => {
          for (let attempt = 0; attempt < 20; attempt++) {
            const res = await post(
              "/api/relay/report",
              JSON.stringify(
                makeReport(vm, {
                  cluster: "sockets",
                  incarnation: 1,
                  events: [ev],
                  drained: [ev.EventId],
                }),
              ),
            );
            if (res.status !== 503) {
              expect(res.status).toBe(200);
              return { vm, body: (await res.json()) as { directives: { kind: string }[] } };
            }
          }
          throw new Error(`${vm}: still 503 after 20 tries`);
        }),
      );
    const answers = [...(await round()), ...(await round())];
    const approvers = new Set(
      answers.filter((a) => a.body.directives.some((d) => d.kind === "approve")).map((a) => a.vm),
    );
    expect(approvers.size).toBe(1);

    const status = await fetch(`${local.url}/api/events/${ev.EventId}?cluster=sockets`, {
      headers: { authorization: `Bearer ${local.operatorKey}` },
    });
    expect(status.status).toBe(200);
    const detail = (await status.json()) as { readiness: unknown[]; phase: string };
    expect(detail.readiness).toHaveLength(20);
    expect(detail.phase).toBe("Approving");
  });

  it("refuses a chunked body over the limit with 413 without reading it all", async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${local.url}/api/relay/report`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${local.relayKey}`, "transfer-encoding": "chunked" },
        },
        (r) => {
          let body = "";
          r.on("data", (c: Buffer) => {
            body += c.toString();
          });
          r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
        },
      );
      req.on("error", () => undefined); // the server may close the socket while we still write
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 20 && req.write(chunk)) sent++;
        if (sent < 20) req.once("drain", pump);
        else req.end();
      };
      pump();
      setTimeout(() => reject(new Error("no answer")), 10_000).unref();
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatch(/limit of 262144 bytes/);
  });

  it("delivers the 413 for a 5 MiB body every time, declared or chunked, instead of resetting the connection", async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, "x");
    const send = (chunked: boolean) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          `${local.url}/api/relay/report`,
          {
            method: "POST",
            headers: {
              authorization: `Bearer ${local.relayKey}`,
              ...(chunked
                ? { "transfer-encoding": "chunked" }
                : { "content-length": String(big.length) }),
            },
          },
          (r) => {
            let body = "";
            r.on("data", (c: Buffer) => {
              body += c.toString();
            });
            r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject); // a reset is the failure this test is about
        // In pieces, as a client on a real network sends it: most of the body is still to come
        // when the 413 is written.
        let at = 0;
        const pump = () => {
          if (at >= big.length) return void req.end();
          const piece = big.subarray(at, at + 256 * 1024);
          at += piece.length;
          if (req.write(piece)) setTimeout(pump, 2);
          else req.once("drain", () => setTimeout(pump, 2));
        };
        pump();
      });
    for (let i = 0; i < 6; i++) {
      const viaFetch = await fetch(`${local.url}/api/relay/report`, {
        method: "POST",
        headers: { authorization: `Bearer ${local.relayKey}` },
        body: big,
      });
      expect(viaFetch.status).toBe(413);
      await viaFetch.text();
      const res = await send(i % 2 === 1);
      expect(res.status).toBe(413);
      expect(res.body).toMatch(/limit of 262144 bytes/);
    }
  });

  it("answers 401 without a key, 404 for an unknown route and 405 for a wrong method", async () => {
    expect((await fetch(`${local.url}/api/status`)).status).toBe(401);
    expect((await fetch(`${local.url}/api/nope`)).status).toBe(404);
    expect((await fetch(`${local.url}/api/status`, { method: "DELETE" })).status).toBe(405);
    const status = await fetch(`${local.url}/api/status`, {
      headers: { authorization: `Bearer ${local.operatorKey}` },
    });
    expect(status.status).toBe(200);
  });

  it("starts its own Azurite when given no connection string, and stops it", async () => {
    const own = await startLocalCoordinator({ sweepIntervalMs: 50 });
    try {
      const res = await fetch(`${own.url}/api/relay/report`, {
        method: "POST",
        headers: { authorization: `Bearer ${own.relayKey}` },
        body: JSON.stringify(makeReport("solo")),
      });
      expect(res.status).toBe(200);
    } finally {
      await own.stop();
    }
    await expect(fetch(`${own.url}/api/status`)).rejects.toThrow();
    await expect(
      fetch(own.connectionString.replace(/.*TableEndpoint=([^;]+);.*/, "$1")),
    ).rejects.toThrow();
  });
});
