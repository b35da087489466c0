import { randomBytes } from "node:crypto";
import { signAttestedDocument } from "@quiesce/fabric-simulator";
import { sampleContent, useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import { type VerifyOptions, type VerifyResult, verifyAttestedDocument } from ".";

/**
 * What is not an attested document is refused as "malformed", with a detail saying what, and
 * never makes verification throw: not base64, not DER, not CMS SignedData, content that is not
 * the documented JSON.
 */

const fx = useAttestedPki();

function options(): VerifyOptions {
  return {
    trustRoots: [fx.pki.tlsRoot.cert],
    intermediates: { issuersOf: async () => [fx.pki.intermediate.cert] },
    sanDomains: ["metadata.azure.com"],
    now: Date.now(),
    maxAgeMs: 5 * 60_000,
    futureSkewMs: 60_000,
  };
}

const verify = (doc: unknown): Promise<VerifyResult> =>
  verifyAttestedDocument(doc as { encoding: string; signature: string }, options());

async function malformed(doc: unknown): Promise<string> {
  const result = await verify(doc);
  expect(result.ok ? "accepted" : result.error.code).toBe("malformed");
  return result.ok ? "" : result.error.detail;
}

const signed = (content: string | object) =>
  signAttestedDocument(content, fx.pki.leaf, { certificates: [fx.pki.leaf.cert] });
const { vmId: _dropped, ...withoutVmId } = JSON.parse(sampleContent()) as Record<string, unknown>;

describe("verifyAttestedDocument: malformed", () => {
  it.each([
    ["an encoding other than pkcs7", { encoding: "json", signature: "AAAA" }, /expected "pkcs7"/],
    [
      "a signature that is not base64",
      { encoding: "pkcs7", signature: "not base64!" },
      /not base64/,
    ],
    ["an empty signature", { encoding: "pkcs7", signature: "" }, /not base64/],
    ["a signature that is not a string", { encoding: "pkcs7", signature: 42 }, /not a string/],
    ["no document at all", null, /no document/],
    [
      "a signature longer than 64 kB",
      { encoding: "pkcs7", signature: "A".repeat(100_000) },
      /longer than 65536 bytes/,
    ],
  ])("%s", async (_what, doc, detail) => {
    expect(await malformed(doc)).toMatch(detail);
  });

  it("base64 of random bytes (not DER)", async () => {
    const noise = randomBytes(300);
    noise[0] = 0x04; // an OCTET STRING whose length runs past the end
    noise[1] = 0x82;
    noise[2] = 0xff;
    noise[3] = 0xff;
    expect(await malformed({ encoding: "pkcs7", signature: noise.toString("base64") })).toMatch(
      /not DER|not CMS/,
    );
  });

  it("a DER certificate instead of CMS", async () => {
    const signature = Buffer.from(fx.pki.leaf.der).toString("base64");
    expect(await malformed({ encoding: "pkcs7", signature })).toMatch(
      /not CMS SignedData|content type/,
    );
  });

  it("CMS followed by extra bytes", async () => {
    const der = Buffer.concat([Buffer.from(signed(sampleContent()), "base64"), Buffer.from([0])]);
    expect(await malformed({ encoding: "pkcs7", signature: der.toString("base64") })).toMatch(
      /1 bytes after the CMS structure/,
    );
  });

  it.each([
    ["content that is not JSON", "this is not JSON", /signed content is not JSON/],
    ["content without vmId", withoutVmId, /signed content: vmId/],
    ["content with an empty nonce", { ...JSON.parse(sampleContent()), nonce: "" }, /nonce/],
    [
      "content whose createdOn is not IMDS's format",
      {
        ...JSON.parse(sampleContent()),
        timeStamp: { createdOn: "2026-07-28T13:24:00Z", expiresOn: "07/28/26 19:24:00 -0000" },
      },
      /timeStamp\.createdOn: not "MM\/DD\/YY HH:mm:ss -0000"/,
    ],
    ["JSON that is not an object", "[1,2,3]", /signed content/],
  ])("%s, though properly signed", async (_what, content, detail) => {
    expect(await malformed({ encoding: "pkcs7", signature: signed(content) })).toMatch(detail);
  });

  it("never throws, whatever it is given", async () => {
    const inputs: unknown[] = [
      undefined,
      "pkcs7",
      { encoding: "pkcs7" },
      { encoding: "pkcs7", signature: "MA==" }, // an empty SEQUENCE
      { encoding: "pkcs7", signature: "MAMCAQE=" }, // SEQUENCE { INTEGER 1 }
      { encoding: "pkcs7", signature: signed(sampleContent()).slice(0, 400) },
    ];
    for (const doc of inputs) {
      const result = await verify(doc);
      expect(result.ok, JSON.stringify(doc)?.slice(0, 80)).toBe(false);
    }
  });
});
