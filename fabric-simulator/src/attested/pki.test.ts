import type { X509Certificate } from "node:crypto";
import * as pkijs from "pkijs";
import { beforeAll, describe, expect, it } from "vitest";
import { aiaFiles, createRogueCa, createTestPki, issueLeaf, type TestPki } from "./pki";

/** The test PKI has the shape of Azure's 2026 hierarchy, and its AIA URLs serve the right files. */

const BASE = "http://127.0.0.1:8123/aia";
let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki({ aiaBaseUrl: BASE });
});

const issued = (child: X509Certificate, issuer: X509Certificate) =>
  child.checkIssued(issuer) && child.verify(issuer.publicKey);
const sigAlg = (der: Uint8Array) => pkijs.Certificate.fromBER(der).signatureAlgorithm.algorithmId;

describe("createTestPki", () => {
  it("chains leaf → intermediate → TLS root, and the cross-signed TLS root → root", () => {
    const { root, tlsRoot, tlsRootCrossSigned, intermediate, leaf } = pki;
    expect(issued(leaf.cert, intermediate.cert)).toBe(true);
    expect(issued(intermediate.cert, tlsRoot.cert)).toBe(true);
    expect(issued(intermediate.cert, tlsRootCrossSigned.cert)).toBe(true);
    expect(issued(tlsRootCrossSigned.cert, root.cert)).toBe(true);
    expect(issued(tlsRoot.cert, tlsRoot.cert)).toBe(true);
    expect(issued(root.cert, root.cert)).toBe(true);
    expect(tlsRootCrossSigned.cert.subject).toBe(tlsRoot.cert.subject);
    expect(tlsRootCrossSigned.cert.publicKey.equals(tlsRoot.cert.publicKey)).toBe(true);
    expect(tlsRootCrossSigned.cert.fingerprint256).not.toBe(tlsRoot.cert.fingerprint256);
  });

  it("makes the leaf like Azure's: CN and SAN metadata.azure.com, serverAuth, not a CA, sha384WithRSA, AIA to the intermediate", () => {
    const { leaf, intermediate } = pki;
    expect(leaf.cert.subject).toBe("C=US\nST=WA\nL=Redmond\nO=Quiesce Test\nCN=metadata.azure.com");
    expect(leaf.cert.subjectAltName).toBe("DNS:eastus.metadata.azure.com, DNS:metadata.azure.com");
    expect(leaf.cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(leaf.cert.ca).toBe(false);
    expect(sigAlg(leaf.der)).toBe("1.2.840.113549.1.1.12");
    expect(leaf.cert.infoAccess).toContain(
      `CA Issuers - URI:${BASE}/pkiops/certs/Quiesce%20Test%20TLS%20G2%20RSA%20CA%20OCSP%2001.crt`,
    );
    expect(intermediate.cert.infoAccess).toContain(
      `CA Issuers - URI:${BASE}/pkiops/certs/Quiesce%20Test%20TLS%20RSA%20Root%20G2%20-%20xsign.crt`,
    );
    expect(
      [pki.root, pki.tlsRoot, pki.tlsRootCrossSigned, intermediate].map((c) => c.cert.ca),
    ).toEqual([true, true, true, true]);
  });

  it("serves the intermediate and both TLS roots by URL path", () => {
    const files = aiaFiles(pki);
    expect([...files.keys()]).toEqual([
      "/aia/pkiops/certs/Quiesce%20Test%20TLS%20G2%20RSA%20CA%20OCSP%2001.crt",
      "/aia/pkiops/certs/Quiesce%20Test%20TLS%20RSA%20Root%20G2%20-%20xsign.crt",
      "/aia/pkiops/certs/Quiesce%20Test%20TLS%20RSA%20Root%20G2.crt",
    ]);
    expect([...files.values()]).toEqual([
      pki.intermediate.der,
      pki.tlsRootCrossSigned.der,
      pki.tlsRoot.der,
    ]);
  });

  it("is made once per process and options", async () => {
    expect(await createTestPki({ aiaBaseUrl: BASE })).toBe(pki);
    expect(await createTestPki({ aiaBaseUrl: BASE, region: "eastus" })).toBe(pki);
  });
});

describe("hostile material", () => {
  it("issueLeaf: another SAN, validity, or issuer", async () => {
    const notBefore = new Date("2030-01-01T00:00:00Z");
    const notAfter = new Date("2030-02-01T00:00:00Z");
    const leaf = await issueLeaf(pki, { san: ["metadata.evil.com"], notBefore, notAfter });
    expect(leaf.cert.subjectAltName).toBe("DNS:metadata.evil.com");
    expect(new Date(leaf.cert.validFrom).toISOString()).toBe(notBefore.toISOString());
    expect(new Date(leaf.cert.validTo).toISOString()).toBe(notAfter.toISOString());
    expect(issued(leaf.cert, pki.intermediate.cert)).toBe(true);

    const rogue = await createRogueCa();
    const rogueLeaf = await issueLeaf(pki, { issuer: "rogue" });
    expect(issued(rogueLeaf.cert, rogue.cert)).toBe(true);
    expect(rogueLeaf.cert.subjectAltName).toBe(pki.leaf.cert.subjectAltName);
    expect(rogueLeaf.cert.infoAccess).toBeUndefined();
    expect(await createRogueCa()).toBe(rogue);

    const signer = await issueLeaf(pki, { keyCertSign: true, cn: "Not A CA" });
    const below = await issueLeaf(pki, { issuer: signer });
    expect(signer.cert.ca).toBe(false);
    expect(issued(below.cert, signer.cert)).toBe(true);
  });
});
