import { issueCertificate, newKeys, signAttestedDocument } from "@quiesce/fabric-simulator";
import { sampleContent, useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import { createAiaSource, memoryAiaCache } from "../aia";
import { BUNDLED_INTERMEDIATES, certificatesOf, DEFAULT_TRUST_ROOTS } from "../trust";
import { type VerifyOptions, verifyAttestedDocument } from ".";
import { viewOf } from "./certView";
import { loadLibs } from "./cms";
import { certificateProblem, issuerProblem } from "./rfc5280";

/**
 * Certificate path validation (RFC 5280 §6) of the attested document's signer, end to end: a
 * document whose signer chains to the trust root by names, keys and validity alone, but through
 * certificates that may not issue or sign what they did, is refused with `chain`. The test PKI's
 * intermediate is, like Azure's TLS issuing CAs, a CA with pathLenConstraint 0.
 */

const fx = useAttestedPki();
const DAY = 86_400_000;
const validity = () => ({
  notBefore: new Date(Date.now() - DAY),
  notAfter: new Date(Date.now() + 30 * DAY),
});
const SAN = ["eastus.metadata.azure.com", "metadata.azure.com"];

function options(): VerifyOptions {
  return {
    trustRoots: [fx.pki.root.cert],
    intermediates: createAiaSource({
      allowedHosts: [fx.aiaHost],
      bundled: [],
      cache: memoryAiaCache(),
      attempts: 1,
    }),
    sanDomains: ["metadata.azure.com"],
    now: Date.now(),
    maxAgeMs: 5 * 60_000,
    futureSkewMs: 60_000,
  };
}

const verify = (signature: string) =>
  verifyAttestedDocument({ encoding: "pkcs7", signature }, options());

describe("attested document path validation", () => {
  it("refuses a metadata.azure.com leaf minted by a CA issued below the pathLen:0 intermediate", async () => {
    const subCa = issueCertificate({
      subject: [["CN", "Rogue CA under the issuing CA"]],
      keys: await newKeys(),
      issuer: fx.pki.intermediate,
      ...validity(),
      ca: true,
    });
    const leaf = issueCertificate({
      subject: [["CN", "metadata.azure.com"]],
      keys: await newKeys(),
      issuer: subCa,
      ...validity(),
      ca: false,
      dnsNames: SAN,
      serverAuth: true,
      hash: "sha384",
    });
    const signature = signAttestedDocument(sampleContent(), leaf, {
      certificates: [leaf.cert, subCa.cert, fx.pki.intermediate.cert],
    });

    const result = await verify(signature);

    expect(result).toMatchObject({
      ok: false,
      error: { code: "chain", detail: expect.stringMatching(/path length/) },
    });
  });

  it("refuses a document signed by a certificate that is itself a CA (cA=true), though named metadata.azure.com", async () => {
    const caSigner = issueCertificate({
      subject: [["CN", "metadata.azure.com"]],
      keys: await newKeys(),
      issuer: fx.pki.intermediate,
      ...validity(),
      ca: true,
      dnsNames: SAN,
      hash: "sha384",
    });
    // The bag carries the intermediate, as an attacker's document may: no AIA URL is needed.
    const signature = signAttestedDocument(sampleContent(), caSigner, {
      certificates: [caSigner.cert, fx.pki.intermediate.cert],
    });

    const result = await verify(signature);

    expect(result).toMatchObject({
      ok: false,
      error: { code: "chain", detail: expect.stringMatching(/is a CA/) },
    });
  });

  it("still accepts the genuine shape: an end-entity signer under the pathLen:0 intermediate", async () => {
    const result = await verify(signAttestedDocument(sampleContent(), fx.pki.leaf));

    expect(result.ok).toBe(true);
  });
});

describe("Azure's own CAs under the same rules", () => {
  it("every bundled intermediate and default root passes the issuer and certificate rules within its validity", async () => {
    const libs = await loadLibs();
    const cas = certificatesOf([...DEFAULT_TRUST_ROOTS, ...BUNDLED_INTERMEDIATES]);
    const problems = cas.flatMap((c) => {
      const view = viewOf(libs, c);
      const at = Date.parse(c.validFrom) + DAY;
      const p = issuerProblem(view) ?? certificateProblem(view, at);
      return p ? [`${view.label}: ${p}`] : [];
    });

    expect(cas.length).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});
