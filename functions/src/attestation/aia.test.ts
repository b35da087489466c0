import { issueCertificate, newKeys, signAttestedDocument } from "@quiesce/fabric-simulator";
import { createLogger } from "@quiesce/protocol";
import { sampleContent, useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import { type AiaSourceOptions, caIssuerUrls, createAiaSource, memoryAiaCache } from "./aia";
import { AiaUnavailableError, verifyAttestedDocument } from "./verify";

/**
 * The AIA source against a real HTTP server on 127.0.0.1: the allow-list, the size cap, the
 * per-attempt timeout, which failures are retried, the cache and the memo, and what the
 * verifier makes of a source that cannot fetch.
 */

const fx = useAttestedPki();
const logs: Array<[string, object]> = [];

/** A source over the fixture's server; `cache` is the memory cache it uses unless `over` has one. */
function source(over: Partial<AiaSourceOptions> = {}) {
  const cache = memoryAiaCache();
  return {
    cache,
    aia: createAiaSource({
      allowedHosts: [fx.aiaHost],
      bundled: [],
      cache,
      attempts: 3,
      backoffMs: 5,
      timeoutMs: 2000,
      log: createLogger({ level: "trace", sink: (r) => logs.push([r.msg, r.fields]) }),
      ...over,
    }),
  };
}

const intermediateUrl = () => `${fx.aia.url}${fx.intermediatePath}`;
const fetches = () => fx.aia.requestsTo("GET", fx.intermediatePath).length;

describe("createAiaSource", () => {
  it("reads the caIssuers URL of a certificate's AIA", () => {
    expect(caIssuerUrls(fx.pki.leaf.cert)).toEqual([intermediateUrl()]);
    expect(caIssuerUrls(fx.pki.tlsRoot.cert)).toEqual([]);
  });

  it("reads a URL Node prints quoted as one URL, even with a line break and a second 'CA Issuers' inside", async () => {
    const urls = [
      "http://h.example/a,b.crt",
      'http://h.example/"q".crt',
      "http://h.example/\nCA Issuers - URI:http://evil.example/",
    ];
    const cert = issueCertificate({
      subject: [["CN", "quoted AIA"]],
      keys: await newKeys(),
      notBefore: new Date(0),
      notAfter: new Date(Date.now() + 86_400_000),
      ca: false,
      caIssuers: urls,
    });
    expect(caIssuerUrls(cert.cert)).toEqual(urls);
  });

  it("a quoted value that is not one JSON string names no URL (Node never prints one)", () => {
    const infoAccess =
      'CA Issuers - URI:"http://a.example/\\x"\nCA Issuers - URI:http://b.example/';
    expect(caIssuerUrls({ infoAccess })).toEqual(["http://b.example/"]);
  });

  it("fetches the intermediate from the allowed host, caches what parsed, and serves the next lookup from memory", async () => {
    const { aia, cache } = source();

    const first = await aia.issuersOf(fx.pki.leaf.cert);
    const second = await aia.issuersOf(fx.pki.leaf.cert);

    expect(first.map((c) => c.fingerprint256)).toEqual([fx.pki.intermediate.cert.fingerprint256]);
    expect(second.map((c) => c.fingerprint256)).toEqual([fx.pki.intermediate.cert.fingerprint256]);
    expect(fetches()).toBe(1);
    expect([...cache.entries.keys()]).toEqual([intermediateUrl()]);
  });

  it("concurrent lookups of one URL share one fetch", async () => {
    const { aia } = source();
    await Promise.all([1, 2, 3].map(() => aia.issuersOf(fx.pki.leaf.cert)));
    expect(fetches()).toBe(1);
  });

  it("a cache hit avoids the fetch", async () => {
    const cache = memoryAiaCache();
    await cache.put(intermediateUrl(), fx.pki.intermediate.der);

    const found = await source({ cache }).aia.issuersOf(fx.pki.leaf.cert);

    expect(found).toHaveLength(1);
    expect(fx.aia.requests).toEqual([]);
  });

  it("a bundled certificate that issued it answers without the network", async () => {
    const { aia } = source({ bundled: [fx.pki.root.cert, fx.pki.intermediate.cert] });
    expect(await aia.issuersOf(fx.pki.leaf.cert)).toEqual([fx.pki.intermediate.cert]);
    expect(fx.aia.requests).toEqual([]);
  });

  it("skips URLs on hosts not allowed: nothing fetched, no issuer, and the verifier refuses 'chain'", async () => {
    const { aia } = source({ allowedHosts: ["www.microsoft.com", "127.0.0.1"] });

    expect(await aia.issuersOf(fx.pki.leaf.cert)).toEqual([]);
    const result = await verifyAttestedDocument(
      { encoding: "pkcs7", signature: signAttestedDocument(sampleContent(), fx.pki.leaf) },
      {
        trustRoots: [fx.pki.tlsRoot.cert],
        intermediates: aia,
        sanDomains: ["metadata.azure.com"],
        now: Date.now(),
        maxAgeMs: 60_000,
        futureSkewMs: 60_000,
      },
    );

    expect(fx.aia.requests).toEqual([]);
    expect(result.ok ? "accepted" : result.error.code).toBe("chain");
    expect(logs.some(([msg]) => msg.includes("not allowed"))).toBe(true);
  });

  it("retries a 503, then takes the certificate", async () => {
    fx.aia.on(
      "GET",
      fx.intermediatePath,
      { status: 503 },
      { status: 200, body: fx.pki.intermediate.der },
    );
    expect(await source().aia.issuersOf(fx.pki.leaf.cert)).toHaveLength(1);
    expect(fetches()).toBe(2);
  });

  it("retries a dropped connection, then takes a PEM answer", async () => {
    fx.aia.on(
      "GET",
      fx.intermediatePath,
      { drop: true },
      { status: 200, body: fx.pki.intermediate.pem },
    );
    expect(await source().aia.issuersOf(fx.pki.leaf.cert)).toHaveLength(1);
    expect(fetches()).toBe(2);
  });

  it("does not retry a 404, and says so in AiaUnavailableError", async () => {
    fx.aia.on("GET", fx.intermediatePath, { status: 404 });
    const { aia, cache } = source();

    await expect(aia.issuersOf(fx.pki.leaf.cert)).rejects.toThrow(
      expect.objectContaining({
        name: "AiaUnavailableError",
        message: expect.stringContaining(`${intermediateUrl()}: HTTP 404`),
      }),
    );
    expect(fetches()).toBe(1);
    expect(cache.entries.size).toBe(0);
  });

  it("enforces the size cap while reading, and does not retry or cache it", async () => {
    fx.aia.on("GET", fx.intermediatePath, { status: 200, body: new Uint8Array(40_000) });
    const { aia, cache } = source();

    await expect(aia.issuersOf(fx.pki.leaf.cert)).rejects.toThrow(/larger than 32768 bytes/);
    expect(fetches()).toBe(1);
    expect(cache.entries.size).toBe(0);
  });

  it("refuses a body that is not a certificate, and does not cache it", async () => {
    fx.aia.on("GET", fx.intermediatePath, { status: 200, body: "<html>moved</html>" });
    const { aia, cache } = source();

    await expect(aia.issuersOf(fx.pki.leaf.cert)).rejects.toThrow(/not a certificate/);
    expect(cache.entries.size).toBe(0);
  });

  it("ends each attempt at timeoutMs when the server never answers", async () => {
    fx.aia.on("GET", fx.intermediatePath, { hang: true });
    const { aia } = source({ timeoutMs: 150, attempts: 2 });

    await expect(aia.issuersOf(fx.pki.leaf.cert)).rejects.toThrow(
      /timed out after 150 ms \(after 2 attempts\)/,
    );
    expect(fetches()).toBe(2);
  });

  it("ends an attempt at timeoutMs even when a custom fetcher ignores the signal", async () => {
    const { aia } = source({
      timeoutMs: 100,
      attempts: 1,
      fetchDer: () => new Promise(() => {}),
    });
    await expect(aia.issuersOf(fx.pki.leaf.cert)).rejects.toBeInstanceOf(AiaUnavailableError);
  });

  it("follows a redirect on an allowed host, and refuses one to another host without retrying", async () => {
    fx.aia.on("GET", fx.intermediatePath, { status: 302, headers: { location: "/moved.crt" } });
    fx.aia.on("GET", "/moved.crt", { status: 200, body: fx.pki.intermediate.der });
    expect(await source().aia.issuersOf(fx.pki.leaf.cert)).toHaveLength(1);

    fx.aia.on("GET", fx.intermediatePath, {
      status: 301,
      headers: { location: "http://evil.example/x.crt" },
    });
    await expect(source().aia.issuersOf(fx.pki.leaf.cert)).rejects.toThrow(/not allowed/);
    expect(fetches()).toBe(2);
  });

  it("when every fetch fails, verifyAttestedDocument returns 'unavailable' naming the URL, and does not throw", async () => {
    fx.aia.on("GET", fx.intermediatePath, { status: 503 });
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf);

    const result = await verifyAttestedDocument(
      { encoding: "pkcs7", signature },
      {
        trustRoots: [fx.pki.root.cert],
        intermediates: source({ attempts: 2 }).aia,
        sanDomains: ["metadata.azure.com"],
        now: Date.now(),
        maxAgeMs: 60_000,
        futureSkewMs: 60_000,
      },
    );

    expect(result.ok ? "accepted" : result.error).toMatchObject({
      code: "unavailable",
      detail: expect.stringContaining("HTTP 503 (after 2 attempts)"),
    });
    expect(fetches()).toBe(2);
  });

  it("a cache that fails is logged and bypassed, not a refusal", async () => {
    const failing = {
      get: async () => {
        throw new Error("table down");
      },
      put: async () => {
        throw new Error("table down");
      },
    };
    expect(await source({ cache: failing }).aia.issuersOf(fx.pki.leaf.cert)).toHaveLength(1);
    expect(logs.filter(([msg]) => msg.startsWith("aia: cache")).length).toBeGreaterThanOrEqual(2);
  });
});
