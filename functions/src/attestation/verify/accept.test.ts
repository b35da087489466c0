import { issueLeaf, signAttestedDocument } from "@quiesce/fabric-simulator";
import { sampleContent, useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import { type AiaSourceOptions, createAiaSource, memoryAiaCache } from "../aia";
import { type IntermediateSource, type VerifyOptions, verifyAttestedDocument } from ".";

/**
 * Documents in Azure's exact shape, signed by the simulator's test PKI, verify: through AIA
 * (a loopback server), through bundled intermediates, to the DigiCert stand-in through the
 * cross-signed root, or directly to the self-signed TLS root.
 */

const fx = useAttestedPki();

function options(over: Partial<VerifyOptions> & { aia?: Partial<AiaSourceOptions> } = {}) {
  const { aia, ...rest } = over;
  return {
    trustRoots: [fx.pki.root.cert],
    intermediates: createAiaSource({
      allowedHosts: [fx.aiaHost],
      bundled: [],
      cache: memoryAiaCache(),
      attempts: 1,
      ...aia,
    }),
    sanDomains: ["metadata.azure.com"],
    now: Date.now(),
    maxAgeMs: 5 * 60_000,
    futureSkewMs: 60_000,
    ...rest,
  } satisfies VerifyOptions;
}

const doc = (signature: string) => ({ encoding: "pkcs7", signature });
const NAMES = {
  leaf: "metadata.azure.com",
  intermediate: "Quiesce Test TLS G2 RSA CA OCSP 01",
  tlsRoot: "Quiesce Test TLS RSA Root G2",
  root: "Quiesce Test Global Root G2",
};
const noSource: IntermediateSource = { issuersOf: async () => [] };

describe("verifyAttestedDocument accepts", () => {
  it("a document carrying only the leaf, its intermediate and the cross-signed root fetched over AIA, up to the DigiCert stand-in", async () => {
    const createdOn = new Date(Math.floor(Date.now() / 1000) * 1000);
    const signature = signAttestedDocument(sampleContent({ createdOn }), fx.pki.leaf);

    const result = await verifyAttestedDocument(doc(signature), options());

    expect(result).toEqual({
      ok: true,
      value: {
        vmId: "b1310a36-d400-46f6-82cb-6217df846586",
        subscriptionId: "8a205152-b25a-417f-a676-80465535a6c9",
        nonce: "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6",
        createdOn: createdOn.getTime(),
        expiresOn: createdOn.getTime() + 6 * 3_600_000,
        chain: [NAMES.leaf, NAMES.intermediate, NAMES.tlsRoot, NAMES.root],
        signerSan: ["eastus.metadata.azure.com", "metadata.azure.com"],
      },
    });
    expect(fx.aia.requests.map((r) => decodeURIComponent(r.path))).toEqual([
      `/pkiops/certs/${NAMES.intermediate}.crt`,
      `/pkiops/certs/${NAMES.tlsRoot} - xsign.crt`,
    ]);
  });

  it("with the intermediate bundled and no AIA host allowed, nothing fetched, up to the self-signed TLS root", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf);

    const result = await verifyAttestedDocument(
      doc(signature),
      options({
        trustRoots: [fx.pki.tlsRoot.cert],
        aia: { allowedHosts: [], bundled: [fx.pki.intermediate.cert] },
      }),
    );

    expect(result.ok && result.value.chain).toEqual([
      NAMES.leaf,
      NAMES.intermediate,
      NAMES.tlsRoot,
    ]);
    expect(fx.aia.requests).toEqual([]);
  });

  it("a trust store holding only the DigiCert stand-in, through the cross-signed copy, when the self-signed TLS root (same subject, same key) is offered first", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf);
    const { intermediate, tlsRoot, tlsRootCrossSigned } = fx.pki;

    const result = await verifyAttestedDocument(
      doc(signature),
      options({
        aia: {
          allowedHosts: [],
          bundled: [intermediate.cert, tlsRoot.cert, tlsRootCrossSigned.cert],
        },
      }),
    );

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.chain.slice(0, 2)).toEqual([NAMES.leaf, NAMES.intermediate]);
    expect(result.value.chain.at(-1)).toBe(NAMES.root);
  });

  it("a trust store holding the self-signed TLS root ends the chain there: the cross-signed copy is not fetched", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf);

    const result = await verifyAttestedDocument(
      doc(signature),
      options({ trustRoots: [fx.pki.root.cert, fx.pki.tlsRoot.cert] }),
    );

    expect(result.ok && result.value.chain).toEqual([
      NAMES.leaf,
      NAMES.intermediate,
      NAMES.tlsRoot,
    ]);
    expect(fx.aia.requests).toHaveLength(1);
  });

  it("a document whose own certificate bag carries the intermediate, with no other source", async () => {
    const { leaf, intermediate, tlsRoot } = fx.pki;
    const signature = signAttestedDocument(sampleContent(), leaf, {
      certificates: [leaf.cert, intermediate.cert],
    });

    const result = await verifyAttestedDocument(
      doc(signature),
      options({ trustRoots: [tlsRoot.cert], intermediates: noSource }),
    );

    expect(result.ok && result.value.chain).toEqual([
      NAMES.leaf,
      NAMES.intermediate,
      NAMES.tlsRoot,
    ]);
  });

  it("a signature over signed attributes (contentType, messageDigest) instead of the content", async () => {
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, { signedAttrs: true });

    const result = await verifyAttestedDocument(doc(signature), options());

    expect(result.ok).toBe(true);
  });

  it("a SignerInfo naming its certificate by subject key identifier (v3), found among several", async () => {
    const other = await issueLeaf(fx.pki);
    const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, {
      sid: "subjectKeyIdentifier",
      certificates: [other.cert, fx.pki.intermediate.cert, fx.pki.leaf.cert],
    });

    const result = await verifyAttestedDocument(doc(signature), options());

    expect(result.ok && result.value.chain[0]).toBe(NAMES.leaf);
  });

  it.each([
    ["sha256", "2.16.840.1.101.3.4.2.1"],
    ["sha384", "2.16.840.1.101.3.4.2.2"],
    ["sha512", "2.16.840.1.101.3.4.2.3"],
    ["sha384WithRSAEncryption", "1.2.840.113549.1.1.12"],
    ["sha512WithRSAEncryption", "1.2.840.113549.1.1.13"],
  ])(
    "the digest algorithm %s (%s), with and without signed attributes",
    async (_name, digestOid) => {
      for (const signedAttrs of [false, true]) {
        const signature = signAttestedDocument(sampleContent(), fx.pki.leaf, {
          digestOid,
          signedAttrs,
        });
        const result = await verifyAttestedDocument(doc(signature), options());
        expect(result.ok, `signedAttrs ${signedAttrs}`).toBe(true);
      }
    },
  );

  it("line breaks in the base64, and a sku only when Azure sent a non-empty one", async () => {
    const withSku = signAttestedDocument(sampleContent({ sku: "2022-datacenter" }), fx.pki.leaf);
    const wrapped = withSku.replace(/(.{64})/g, "$1\n");

    const a = await verifyAttestedDocument(doc(wrapped), options());
    const b = await verifyAttestedDocument(
      doc(signAttestedDocument(sampleContent(), fx.pki.leaf)),
      options(),
    );

    expect(a.ok && a.value.sku).toBe("2022-datacenter");
    expect(b.ok && "sku" in b.value).toBe(false);
  });

  it("a subdomain of a configured domain in another region, and a SAN domain of another cloud when listed", async () => {
    const leaf = await issueLeaf(fx.pki, {
      san: ["usgovvirginia.metadata.azure.us", "metadata.azure.us"],
    });
    const signature = signAttestedDocument(sampleContent(), leaf);

    const result = await verifyAttestedDocument(
      doc(signature),
      options({ sanDomains: ["metadata.azure.com", "metadata.azure.us"] }),
    );

    expect(result.ok && result.value.signerSan).toEqual([
      "usgovvirginia.metadata.azure.us",
      "metadata.azure.us",
    ]);
  });
});
