import {
  createRogueCa,
  issueLeaf,
  signAttestedDocument,
  tamperAttestedDocument,
} from "@quiesce/fabric-simulator";
import { sampleContent, useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import { createAiaSource, memoryAiaCache } from "../aia";
import { type AttestationRefusalCode, type VerifyOptions, verifyAttestedDocument } from ".";

/**
 * Hostile or broken documents are refused, each with the code of the step that caught it, and
 * the refusal never depends on which certificate comes first in the bag.
 */

const fx = useAttestedPki();

function options(over: Partial<VerifyOptions> = {}): VerifyOptions {
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
    ...over,
  };
}

async function refusal(signature: string, over: Partial<VerifyOptions> = {}) {
  const result = await verifyAttestedDocument({ encoding: "pkcs7", signature }, options(over));
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.value)}`);
  return result.error;
}

const expectRefused = (
  error: { code: AttestationRefusalCode; detail: string },
  code: AttestationRefusalCode,
  detail: RegExp,
) => {
  expect(error.code).toBe(code);
  expect(error.detail).toMatch(detail);
};

describe("verifyAttestedDocument refuses", () => {
  it("content changed by one byte after signing (signature)", async () => {
    const genuine = signAttestedDocument(sampleContent(), fx.pki.leaf);
    const tampered = tamperAttestedDocument(genuine);
    expect(Buffer.from(tampered, "base64").compare(Buffer.from(genuine, "base64"))).not.toBe(0);

    expectRefused(await refusal(tampered), "signature", /does not verify over the content/);
  });

  it("content changed under signed attributes: messageDigest no longer matches (signature)", async () => {
    const genuine = signAttestedDocument(sampleContent(), fx.pki.leaf, { signedAttrs: true });

    expectRefused(
      await refusal(tamperAttestedDocument(genuine)),
      "signature",
      /messageDigest does not match/,
    );
  });

  it("a SHA-1 digest algorithm, though the signature itself is valid (signature)", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, {
      digestOid: "1.3.14.3.2.26",
    });

    expectRefused(await refusal(signature), "signature", /1\.3\.14\.3\.2\.26 is not accepted/);
  });

  it("a signature made with another key than the certificate's (signature)", async () => {
    const other = await issueLeaf(fx.pki);
    const signature = signAttestedDocument(sampleContent(), {
      cert: fx.pki.leaf.cert,
      keys: other.keys,
    });

    expectRefused(await refusal(signature), "signature", /does not verify/);
  });

  it.each([
    ["metadata.evil.com", ["metadata.evil.com"]],
    ["evilmetadata.azure.com (no label boundary)", ["evilmetadata.azure.com"]],
    ["a metadata name next to another domain", ["metadata.azure.com", "evil.example"]],
    ["one name hiding a second behind ', DNS:'", ["evil.example, DNS:metadata.azure.com"]],
  ])(
    "a signer whose SAN is %s, chained to the trusted root all the same (san)",
    async (_what, san) => {
      const leaf = await issueLeaf(fx.pki, { san });

      expectRefused(
        await refusal(signAttestedDocument(sampleContent(), leaf)),
        "san",
        /is not in metadata\.azure\.com/,
      );
    },
  );

  it("a signer with Azure's names from another hierarchy, even with its root in the bag (chain)", async () => {
    const rogueLeaf = await issueLeaf(fx.pki, { issuer: "rogue" });
    const rogueRoot = await createRogueCa();

    const alone = signAttestedDocument(sampleContent(), rogueLeaf);
    const withRoot = signAttestedDocument(sampleContent(), rogueLeaf, {
      certificates: [rogueLeaf.cert, rogueRoot.cert],
    });

    expectRefused(
      await refusal(alone),
      "chain",
      /no issuer found for .*CN=metadata.azure.com \(issuer .*CN=Quiesce Test Rogue Root\)/,
    );
    expectRefused(
      await refusal(withRoot),
      "chain",
      /path ends at .*CN=Quiesce Test Rogue Root, self-signed and not a trust root/,
    );
  });

  it("signer-not-first: a genuine leaf first in the bag, the content signed by a rogue certificate second (chain, judged on the rogue one)", async () => {
    const rogueLeaf = await issueLeaf(fx.pki, { issuer: "rogue" });
    const signature = signAttestedDocument(sampleContent(), rogueLeaf, {
      certificates: [fx.pki.leaf.cert, rogueLeaf.cert],
    });

    const error = await refusal(signature);

    // The signature verified (the real signer was found by its sid); its chain did not.
    expectRefused(error, "chain", /Rogue/);
  });

  it("two SignerInfos, both genuine (signer)", async () => {
    const second = await issueLeaf(fx.pki);
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, {
      extraSigners: [second],
      certificates: [fx.pki.leaf.cert, second.cert],
    });

    expectRefused(await refusal(signature), "signer", /2 SignerInfos, expected exactly one/);
  });

  it("no certificate in the bag matching the SignerInfo's issuer and serial (signer)", async () => {
    const other = await issueLeaf(fx.pki);
    for (const certificates of [[], [other.cert]]) {
      const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, { certificates });
      expectRefused(
        await refusal(signature),
        "signer",
        /no certificates in the document match the signer \(issuer "Quiesce Test TLS G2 RSA CA OCSP 01", serial/,
      );
    }
  });

  it("a subject key identifier matching no certificate in the bag (signer)", async () => {
    const other = await issueLeaf(fx.pki);
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, {
      sid: "subjectKeyIdentifier",
      certificates: [other.cert],
    });

    expectRefused(
      await refusal(signature),
      "signer",
      /match the signer \(subject key id [0-9a-f]{40}\)/,
    );
  });

  it("the signer's certificate twice in the bag: ambiguous (signer)", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, {
      certificates: [fx.pki.leaf.cert, fx.pki.leaf.cert],
    });

    expectRefused(await refusal(signature), "signer", /2 certificates in the document match/);
  });

  it("an issuer that is not a CA, though it may sign certificates (chain)", async () => {
    const notCa = await issueLeaf(fx.pki, { keyCertSign: true, cn: "Not A CA" });
    const leaf = await issueLeaf(fx.pki, { issuer: notCa });
    const signature = signAttestedDocument(sampleContent(), leaf, {
      certificates: [leaf.cert, notCa.cert],
    });

    expectRefused(await refusal(signature), "chain", /issuer .*CN=Not A CA of .* is not a CA/);
  });

  it("a chain the trust store does not end (chain), naming where it stopped", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf);
    const rogueRoot = await createRogueCa();

    expectRefused(
      await refusal(signature, { trustRoots: [rogueRoot.cert] }),
      "chain",
      /no issuer found for .*CN=Quiesce Test TLS RSA Root G2 \(issuer .*CN=Quiesce Test Global Root G2\)/,
    );
  });

  it("reports the first failing step: tampered content with a wrong SAN is a signature refusal", async () => {
    const leaf = await issueLeaf(fx.pki, { san: ["metadata.evil.com"] });
    const signature = tamperAttestedDocument(signAttestedDocument(sampleContent(), leaf));

    expect((await refusal(signature)).code).toBe("signature");
  });
});
