import { X509Certificate } from "node:crypto";
import { rootCertificates } from "node:tls";
import { describe, expect, it } from "vitest";
import {
  BUNDLED_INTERMEDIATES,
  certificatesOf,
  DEFAULT_TRUST_ROOTS,
  type PinnedCertificate,
  parsePemBundle,
} from "./trust";

/** The shipped certificates are what their fingerprints say, and operators' PEM is read leniently. */

const all: PinnedCertificate[] = [...DEFAULT_TRUST_ROOTS, ...BUNDLED_INTERMEDIATES];

describe("shipped certificates", () => {
  it.each(all.map((p) => [p.name, p]))(
    "%s parses and has the listed SHA-256 fingerprint",
    (_n, p) => {
      const cert = new X509Certificate(p.pem);
      expect(cert.fingerprint256).toBe(p.sha256);
      expect(cert.ca).toBe(true);
      expect(cert.subject).toContain(`CN=${p.name.replace(/ - xsign$/, "")}`);
      expect(p.source).toMatch(
        /^https:\/\/(www\.microsoft\.com\/pkiops\/certs|cacerts\.digicert\.com)\//,
      );
    },
  );

  it("has no certificate twice", () => {
    expect(new Set(all.map((p) => p.sha256)).size).toBe(all.length);
  });

  it("the roots are self-signed", () => {
    for (const root of certificatesOf(DEFAULT_TRUST_ROOTS)) {
      expect(root.subject).toBe(root.issuer);
      expect(root.verify(root.publicKey)).toBe(true);
    }
  });

  it("every bundled intermediate was issued by one of the default roots", () => {
    const roots = certificatesOf(DEFAULT_TRUST_ROOTS);
    for (const cert of certificatesOf(BUNDLED_INTERMEDIATES)) {
      const issuer = roots.find((r) => cert.checkIssued(r) && cert.verify(r.publicKey));
      expect(issuer?.subject, cert.subject).toBe(cert.issuer);
    }
  });

  it("DigiCert Global Root G2 and Microsoft RSA Root CA 2017 are the ones in Node's CA store", () => {
    const nodeStore = new Set(rootCertificates.map((p) => new X509Certificate(p).fingerprint256));
    expect(nodeStore.has(DEFAULT_TRUST_ROOTS[0]?.sha256 as string)).toBe(true);
    expect(nodeStore.has(DEFAULT_TRUST_ROOTS[1]?.sha256 as string)).toBe(true);
  });

  it("parses each list once per process", () => {
    expect(certificatesOf(BUNDLED_INTERMEDIATES)).toBe(certificatesOf(BUNDLED_INTERMEDIATES));
  });
});

describe("parsePemBundle", () => {
  const [a, b] = DEFAULT_TRUST_ROOTS as [PinnedCertificate, PinnedCertificate];
  const fingerprints = (certs: X509Certificate[]) => certs.map((c) => c.fingerprint256);

  it.each([
    ["PEM with line breaks", `${a.pem}\n${b.pem}`],
    ["CRLF line breaks", `${a.pem}${b.pem}`.replace(/\n/g, "\r\n")],
    ["literal \\n escapes, as app settings carry them", `${a.pem}${b.pem}`.replace(/\n/g, "\\n")],
    ["no line breaks at all", `${a.pem} ${b.pem}`.replace(/\n/g, "")],
    ["spaces for line breaks", `${a.pem}${b.pem}`.replace(/\n/g, " ")],
    ["text around the blocks", `# roots\n${a.pem}\nsubject=...\n${b.pem}\n`],
  ])("reads %s", (_what, text) => {
    expect(fingerprints(parsePemBundle(text))).toEqual([a.sha256, b.sha256]);
  });

  it("refuses text with no certificate, saying what it expected", () => {
    expect(() => parsePemBundle("")).toThrow(/no certificate found: expected PEM/);
    expect(() => parsePemBundle("MIIFgDCCA2igAwIBAgIQ")).toThrow(/no certificate found/);
  });

  it("refuses a block that is not a certificate, naming which", () => {
    const broken = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----";
    expect(() => parsePemBundle(`${a.pem}${broken}`)).toThrow(/^certificate 2 of 2: /);
    expect(() =>
      parsePemBundle("-----BEGIN CERTIFICATE-----\n*!\n-----END CERTIFICATE-----"),
    ).toThrow(/not base64/);
  });
});
