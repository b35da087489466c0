import { X509Certificate } from "node:crypto";

/** Certificates from text or bytes, as operators and AIA servers hand them over. */

const BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/**
 * Certificates from PEM text, as an operator puts them in an app setting
 * (QUIESCE_ATTESTATION_TRUST_ROOTS, QUIESCE_ATTESTATION_INTERMEDIATES): one or more
 * "-----BEGIN CERTIFICATE-----" blocks, with real line breaks, literal "\n" escapes (app
 * settings and Key Vault references often carry those), or none at all between the markers.
 * Throws, naming what is wrong, when there is no certificate or one does not parse.
 */
export function parsePemBundle(text: string): X509Certificate[] {
  const unescaped = text.replace(/\\r\\n|\\n|\\r/g, "\n");
  const blocks = [...unescaped.matchAll(BLOCK)].map((m) => (m[1] ?? "").replace(/\s+/g, ""));
  if (blocks.length === 0)
    throw new Error(
      "no certificate found: expected PEM (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)",
    );
  return blocks.map((b64, i) => {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64))
      throw new Error(
        `certificate ${i + 1} of ${blocks.length}: not base64 between the PEM markers`,
      );
    try {
      return new X509Certificate(Buffer.from(b64, "base64"));
    } catch (e) {
      throw new Error(`certificate ${i + 1} of ${blocks.length}: ${(e as Error).message}`);
    }
  });
}

/**
 * What an AIA URL served: one DER certificate (Microsoft's .crt), or PEM text of one or more.
 * (PKCS#7 "certs-only" bundles, which some other CAs serve, are not accepted.)
 */
export function parseCertificates(
  body: Uint8Array,
): { ok: true; value: X509Certificate[] } | { ok: false; error: string } {
  const head = Buffer.from(body.subarray(0, 64)).toString("latin1").trimStart();
  try {
    if (head.startsWith("-----BEGIN"))
      return { ok: true, value: parsePemBundle(Buffer.from(body).toString("utf8")) };
    return { ok: true, value: [new X509Certificate(Buffer.from(body))] };
  } catch (e) {
    return { ok: false, error: `not a certificate: ${(e as Error).message.slice(0, 100)}` };
  }
}
