import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearSecrets, REDACTED, redact } from "@quiesce/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectKubernetes } from "../../src/kubernetes/client";
import { TOKEN_REREAD_MS, tokenFileSource } from "../../src/kubernetes/token";

afterEach(() => clearSecrets());

/** A token file whose content the test sets, and a clock it moves. */
function fixture(initial: string | Error) {
  let content: string | Error = initial;
  let now = 0;
  let reads = 0;
  const source = tokenFileSource(
    "/var/run/secrets/token",
    () => now,
    async () => {
      reads++;
      if (content instanceof Error) throw content;
      return content;
    },
  );
  return {
    source,
    set: (c: string | Error) => {
      content = c;
    },
    advance: (ms: number) => {
      now += ms;
    },
    reads: () => reads,
  };
}

describe("the Kubernetes token file, read as client-go reads it", () => {
  it("trims the newline `kubectl create token > file` leaves, and surrounding blanks", async () => {
    expect(await fixture("abc.def.ghi\n").source.token()).toBe("abc.def.ghi");
    expect(await fixture("  tok\r\n\t").source.token()).toBe("tok");
  });

  it("refuses an empty file, naming it", async () => {
    await expect(fixture(" \n").source.token()).rejects.toThrow(
      "read an empty token from /var/run/secrets/token",
    );
  });

  it("reads the file again after a minute, and at once after a 401", async () => {
    const f = fixture("first-token\n");
    expect(await f.source.token()).toBe("first-token");
    f.set("second-token\n");
    f.advance(TOKEN_REREAD_MS - 1);
    expect(await f.source.token()).toBe("first-token");
    f.advance(1);
    expect(await f.source.token()).toBe("second-token");
    f.set("third-token");
    f.source.refused();
    expect(await f.source.token()).toBe("third-token");
    expect(f.reads()).toBe(3);
  });

  it("keeps the token it holds when a re-read fails, and says why when it has none", async () => {
    const f = fixture("held-token");
    await f.source.token();
    f.set(Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" }));
    f.advance(TOKEN_REREAD_MS);
    expect(await f.source.token()).toBe("held-token");
    const none = fixture(Object.assign(new Error("EACCES"), { code: "EACCES" }));
    await expect(none.source.token()).rejects.toThrow(
      "cannot read the token file /var/run/secrets/token: EACCES",
    );
  });

  it("makes every token it read, and the one before, a secret no text can carry", async () => {
    const f = fixture("CANARY-token-one\n");
    await f.source.token();
    f.set("CANARY-token-two");
    f.source.refused();
    await f.source.token();
    expect(redact("Bearer? no: CANARY-token-one, CANARY-token-two")).toBe(
      `Bearer? no: ${REDACTED}, ${REDACTED}`,
    );
  });
});

describe("the relay's Kubernetes client authenticates with the trimmed token", () => {
  let server: Server;
  let url = "";
  const seen: string[] = [];
  let refuseNext = false;
  const dir = mkdtempSync(join(tmpdir(), "quiesce-token-"));
  const tokenFile = join(dir, "token");

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? "");
      const status = refuseNext ? 401 : 200;
      refuseNext = false;
      res.writeHead(status, { "content-type": "application/json" }).end(
        JSON.stringify(
          status === 200
            ? { kind: "NodeList", apiVersion: "v1", metadata: {}, items: [] }
            : {
                kind: "Status",
                apiVersion: "v1",
                status: "Failure",
                reason: "Unauthorized",
                code: 401,
              },
        ),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends a token file that ends in a newline without it, and reads a rotated one after a 401", async () => {
    writeFileSync(tokenFile, "first-token\n");
    const api = await connectKubernetes({ apiUrl: url, tokenFile, caFile: "/nonexistent" });
    expect(await api.listNodes()).toEqual([]);
    expect(seen.at(-1)).toBe("Bearer first-token");
    writeFileSync(tokenFile, "second-token\n");
    refuseNext = true;
    await expect(api.listNodes()).rejects.toThrow(/401/);
    expect(await api.listNodes()).toEqual([]);
    expect(seen.at(-1)).toBe("Bearer second-token");
  });
});
