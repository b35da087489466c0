import { issueLeaf, signAttestedDocument } from "@quiesce/fabric-simulator";
import { sampleContent, useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import { type VerifyOptions, verifyAttestedDocument } from ".";
import { checkFreshness } from "./freshness";

/**
 * Time: the document must be recent by the coordinator's window and not expired by Azure's,
 * and every certificate on the path must be valid at the document's createdOn (not at "now").
 */

const fx = useAttestedPki();
const MIN = 60_000;
/** Now, in whole seconds: IMDS timestamps have no milliseconds. */
const wholeSecondNow = () => Math.floor(Date.now() / 1000) * 1000;

function options(over: Partial<VerifyOptions> = {}): VerifyOptions {
  return {
    trustRoots: [fx.pki.tlsRoot.cert],
    intermediates: { issuersOf: async () => [fx.pki.intermediate.cert] },
    sanDomains: ["metadata.azure.com"],
    now: Date.now(),
    maxAgeMs: 5 * MIN,
    futureSkewMs: MIN,
    ...over,
  };
}

async function verifyAt(
  createdOn: number,
  over: Partial<VerifyOptions> & { lifetimeMs?: number } = {},
) {
  const { lifetimeMs, ...rest } = over;
  const content = sampleContent({
    createdOn: new Date(createdOn),
    ...(lifetimeMs === undefined ? {} : { lifetimeMs }),
  });
  const signature = signAttestedDocument(content, fx.pki.leaf);
  return verifyAttestedDocument({ encoding: "pkcs7", signature }, options(rest));
}

describe("verifyAttestedDocument and time", () => {
  it("refuses a document created longer ago than maxAgeMs (expired)", async () => {
    const now = wholeSecondNow();
    const result = await verifyAt(now - 10 * MIN, { now });
    expect(result.ok ? "accepted" : result.error).toMatchObject({
      code: "expired",
      detail: expect.stringMatching(/createdOn .* is 600 s old, more than 300 s/),
    });
  });

  it("refuses a document created more than futureSkewMs ahead of now (future)", async () => {
    const now = wholeSecondNow();
    const result = await verifyAt(now + 5 * MIN, { now });
    expect(result.ok ? "accepted" : result.error.code).toBe("future");
  });

  it("accepts a document created within the skew ahead of now, and one just inside maxAgeMs", async () => {
    const now = wholeSecondNow();
    expect((await verifyAt(now + 30_000, { now })).ok).toBe(true);
    expect((await verifyAt(now - 5 * MIN + 1000, { now })).ok).toBe(true);
  });

  it("refuses a recent document whose own expiresOn has passed (expired)", async () => {
    const now = wholeSecondNow();
    const result = await verifyAt(now - 2 * MIN, { now, lifetimeMs: 10_000 });
    expect(result.ok ? "accepted" : result.error).toMatchObject({
      code: "expired",
      detail: expect.stringMatching(/^expiresOn .* has passed/),
    });
  });

  it("refuses a leaf that is not yet valid at the document's createdOn (chain)", async () => {
    const now = wholeSecondNow();
    const leaf = await issueLeaf(fx.pki, {
      notBefore: new Date(now + 60 * MIN),
      notAfter: new Date(now + 600 * MIN),
    });
    const signature = signAttestedDocument(sampleContent({ createdOn: new Date(now) }), leaf);

    const result = await verifyAttestedDocument({ encoding: "pkcs7", signature }, options({ now }));

    expect(result.ok ? "accepted" : result.error).toMatchObject({
      code: "chain",
      detail: expect.stringMatching(/CN=metadata\.azure\.com is not valid at .* \(valid /),
    });
  });

  it("judges certificates at createdOn, not now: a leaf that expired since is refused only by freshness", async () => {
    const created = Date.now() - 2 * 86_400_000;
    const leaf = await issueLeaf(fx.pki, {
      notBefore: new Date(created - 86_400_000),
      notAfter: new Date(created + 86_400_000),
    });
    const signature = signAttestedDocument(sampleContent({ createdOn: new Date(created) }), leaf);

    const atCreation = await verifyAttestedDocument(
      { encoding: "pkcs7", signature },
      options({ now: created + MIN }),
    );
    const today = await verifyAttestedDocument({ encoding: "pkcs7", signature }, options());

    expect(atCreation.ok).toBe(true);
    expect(today.ok ? "accepted" : today.error.code).toBe("expired");
  });

  it("refuses an expired leaf at the document's time (chain)", async () => {
    const now = wholeSecondNow();
    const leaf = await issueLeaf(fx.pki, {
      notBefore: new Date(now - 10 * 86_400_000),
      notAfter: new Date(now - 86_400_000),
    });
    const signature = signAttestedDocument(sampleContent({ createdOn: new Date(now) }), leaf);

    const result = await verifyAttestedDocument({ encoding: "pkcs7", signature }, options({ now }));

    expect(result.ok ? "accepted" : result.error.code).toBe("chain");
  });
});

describe("checkFreshness", () => {
  const now = Date.parse("2026-07-28T13:24:00Z");
  const opts = { now, maxAgeMs: 5 * MIN, futureSkewMs: MIN };
  it.each([
    ["created now, 6 h lifetime", now, now + 360 * MIN, "ok"],
    ["created at the edge of maxAge", now - 5 * MIN, now + MIN, "ok"],
    ["created 1 ms past maxAge", now - 5 * MIN - 1, now + MIN, "expired"],
    ["created at the edge of the skew", now + MIN, now + 2 * MIN, "ok"],
    ["created 1 ms past the skew", now + MIN + 1, now + 2 * MIN, "future"],
    ["expired within the skew", now - MIN, now - MIN, "ok"],
    ["expired 1 ms past the skew", now - MIN, now - MIN - 1, "expired"],
  ])("%s", (_what, createdOn, expiresOn, expected) => {
    const r = checkFreshness({ createdOn, expiresOn }, opts);
    expect(r.ok ? "ok" : r.error.code).toBe(expected);
  });
});
