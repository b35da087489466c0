import { buildChain } from "./chain";
import { parseSignedData, selectSigner } from "./cms";
import { parseAttestedContent } from "./content";
import { checkFreshness } from "./freshness";
import { checkSignerSan } from "./san";
import { verifySignerSignature } from "./signature";
import { commonName, refuse, type VerifyOptions, type VerifyResult } from "./types";

/**
 * Verification of Azure IMDS's attested document (GET /metadata/attested/document): a CMS
 * SignedData whose content is JSON naming the VM (vmId, subscriptionId) and echoing the nonce.
 * The steps, in the order their refusals are reported: the document parses (malformed), it has
 * one signer with one certificate (signer), the signature verifies over the content
 * (signature), the signer is Azure's metadata service by its SAN (san), the document is recent
 * (expired, future), and the signer chains to a trust root at the document's time (chain, or
 * unavailable when an intermediate could not be fetched). Never throws.
 */

export { parseImdsTimestamp } from "./content";
export {
  inDomain,
  SAN_DOMAINS_BY_ARM_ENDPOINT,
  sanDnsNames,
  sanDomainsForArmEndpoint,
} from "./san";
export {
  AiaUnavailableError,
  type AttestationRefusal,
  type AttestationRefusalCode,
  type AttestedContent,
  type IntermediateSource,
  type VerifiedDocument,
  type VerifyOptions,
  type VerifyResult,
} from "./types";

/** Azure's documents are ~3 kB; anything much larger is not one, and is not parsed. */
const MAX_DOCUMENT_BYTES = 64 * 1024;

export async function verifyAttestedDocument(
  doc: { encoding: string; signature: string },
  opts: VerifyOptions,
): Promise<VerifyResult> {
  try {
    return await verify(doc, opts);
  } catch (e) {
    // Every input problem is a refusal above; what lands here is ours (a library that failed
    // to load, say), so the relay is told to retry, not that its document is bad.
    return refuse("unavailable", `verification failed: ${(e as Error).message}`);
  }
}

async function verify(
  doc: { encoding: string; signature: string },
  opts: VerifyOptions,
): Promise<VerifyResult> {
  if (typeof doc !== "object" || doc === null) return refuse("malformed", "no document");
  if (doc.encoding !== "pkcs7")
    return refuse(
      "malformed",
      `encoding ${JSON.stringify(String(doc.encoding)).slice(0, 40)}, expected "pkcs7"`,
    );
  const der = decodeBase64(doc.signature);
  if (!der.ok) return der;

  const parsed = await parseSignedData(der.value);
  if (!parsed.ok) return parsed;
  const content = parseAttestedContent(parsed.value.content);
  if (!content.ok) return content;

  const signer = selectSigner(parsed.value);
  if (!signer.ok) return signer;
  const { cert } = signer.value;
  const signature = verifySignerSignature(signer.value.signer, cert, parsed.value.content);
  if (!signature.ok) return signature;

  const san = checkSignerSan(cert, opts.sanDomains);
  if (!san.ok) return san;
  const fresh = checkFreshness(content.value, opts);
  if (!fresh.ok) return fresh;

  const chain = await buildChain({
    signer: cert,
    trustRoots: opts.trustRoots,
    documentCerts: parsed.value.certificates,
    intermediates: opts.intermediates,
    at: content.value.createdOn,
  });
  if (!chain.ok) return chain;
  return {
    ok: true,
    value: {
      ...content.value,
      chain: chain.value.map((c) => commonName(c.subject)),
      signerSan: san.value,
    },
  };
}

/** Strict base64 (IMDS sends one line; line breaks are tolerated), bounded in size. */
function decodeBase64(text: unknown): { ok: true; value: Uint8Array } | ReturnType<typeof refuse> {
  if (typeof text !== "string") return refuse("malformed", "signature is not a string");
  const compact = text.replace(/\s+/g, "");
  if (compact.length > (MAX_DOCUMENT_BYTES / 3) * 4)
    return refuse("malformed", `signature longer than ${MAX_DOCUMENT_BYTES} bytes`);
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact))
    return refuse("malformed", "signature is not base64");
  return { ok: true, value: new Uint8Array(Buffer.from(compact, "base64")) };
}
