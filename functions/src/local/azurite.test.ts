import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startAzurite } from "./azurite";

/**
 * Azurite counts as started only on its own word and its own answer: a port that answers HTTP is
 * not enough, since another process may have taken the free port before Azurite could bind it.
 */
describe("startAzurite", () => {
  let foreign: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (foreign ? foreign.close(() => r()) : r()));
    foreign = undefined;
  });

  it("refuses a port another HTTP server holds, rather than handing out a connection string to it", async () => {
    foreign = createServer((_req, res) => res.writeHead(404).end("not Azurite"));
    await new Promise<void>((r) => foreign?.listen(0, "127.0.0.1", () => r()));
    const address = foreign.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await expect(startAzurite({ port, startTimeoutMs: 20_000 })).rejects.toThrow(/EADDRINUSE/);
  });

  it("starts on a free port and answers as Azurite there", async () => {
    const azurite = await startAzurite();
    try {
      const res = await fetch(`http://127.0.0.1:${azurite.port}/devstoreaccount1/Tables`);
      expect(res.headers.get("server")).toMatch(/^Azurite-Table\//);
    } finally {
      await azurite.stop();
    }
  });
});
