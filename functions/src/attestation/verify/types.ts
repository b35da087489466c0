import type { X509Certificate } from "node:crypto";

/**
 * The vocabulary of attested-document verification, shared by its steps (cms, signature, san,
 * freshness, chain) and re-exported unchanged by ./index.ts, which is the interface the rest of
 * the coordinator codes against. Kept apart from index.ts so the steps need not import the
 * module that imports them.
 */

export type AttestationRefusalCode =
  | "malformed" // not base64 / not CMS SignedData / content not the documented JSON
  | "signer" // not exactly one SignerInfo, or no/ambiguous certificate matching its issuer+serial
  | "signature" // signature does not verify over the content (tampered), or an algorithm we do not accept
  | "san" // signer's SAN not metadata domain of the configured cloud(s)
  | "chain" // no path to a trust root that passes RFC 5280 path validation (./rfc5280.ts) at the document's time
  | "expired" // createdOn older than maxAgeMs before now, or expiresOn more than futureSkewMs before now
  | "future" // createdOn more than futureSkewMs after now
  | "unavailable"; // an intermediate could not be fetched (AIA) right now: NOT the relay's fault, retry later

export interface AttestationRefusal {
  code: AttestationRefusalCode;
  detail: string;
}

export interface AttestedContent {
  vmId: string;
  subscriptionId: string;
  nonce: string;
  createdOn: number;
  expiresOn: number;
  sku?: string;
}

export interface VerifiedDocument extends AttestedContent {
  /** Subject CNs from the signer to the trust root, for logs and the status API. */
  chain: string[];
  signerSan: string[];
}

/** Where intermediates come from besides the document: bundled ones, a cache, AIA. */
export interface IntermediateSource {
  /** Certificates that may have issued `cert` (by its issuer name and its AIA caIssuers URLs). Throws AiaUnavailableError when a fetch failed and nothing else matched. */
  issuersOf(cert: X509Certificate): Promise<X509Certificate[]>;
}

export class AiaUnavailableError extends Error {
  override name = "AiaUnavailableError";
}

export interface VerifyOptions {
  trustRoots: readonly X509Certificate[];
  intermediates: IntermediateSource;
  sanDomains: readonly string[];
  now: number; // epoch ms
  maxAgeMs: number; // createdOn must be within this of now
  futureSkewMs: number; // tolerated clock skew
}

export type VerifyResult =
  | { ok: true; value: VerifiedDocument }
  | { ok: false; error: AttestationRefusal };

/** A step's answer: its value, or the refusal that ends verification. */
export type Step<T> = { ok: true; value: T } | { ok: false; error: AttestationRefusal };

/**
 * Details end up in logs and in the relay's answer: bounded, so a hostile document (a 10 kB
 * subject name, say) cannot make them large.
 */
export const MAX_DETAIL = 300;

export function refuse(
  code: AttestationRefusalCode,
  detail: string,
): { ok: false; error: AttestationRefusal } {
  const bounded = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail;
  return { ok: false, error: { code, detail: bounded } };
}

/** A certificate as a detail names it: its subject on one line, bounded. */
export function describeCert(cert: X509Certificate): string {
  return describeName(cert.subject);
}

/** The CN of a subject or issuer (Node's one-attribute-per-line form), else the whole name. */
export function commonName(name: string | undefined): string {
  const cn = (name ?? "")
    .split("\n")
    .find((l) => l.startsWith("CN="))
    ?.slice(3);
  return cn ?? describeName(name);
}

/** A distinguished name (Node's one-attribute-per-line form) on one line, bounded. */
export function describeName(name: string | undefined): string {
  // Node gives undefined, not "", for an empty name (a hostile certificate's).
  const text = (name ?? "").split("\n").filter(Boolean).join(", ") || "(empty name)";
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
