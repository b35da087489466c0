import { constants, createHash, verify, type X509Certificate } from "node:crypto";
import type { SignerView } from "./cms";
import { refuse, type Step } from "./types";

/**
 * Does the SignerInfo's signature verify, with the signer certificate's key, over what it
 * covers? RSA PKCS#1 v1.5 with SHA-256/384/512 through node:crypto, nothing else.
 */

/**
 * SignerInfo digest algorithms we accept, by OID. Azure writes sha256WithRSAEncryption here
 * where RFC 5652 wants plain sha256 (mozilla-services/pkcs7 PR #49 met the same): both forms
 * mean the same hash. SHA-1 and MD5 are refused.
 */
const DIGESTS: Record<string, "sha256" | "sha384" | "sha512"> = {
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
};

const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
/** The signature algorithm: rsaEncryption (Azure's), or a WithRSA OID of the same hash. */
const RSA_WITH: Record<string, string> = {
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
};

/** `hash` for a SignerInfo digest algorithm OID, or undefined when we do not accept it. */
export function digestOf(oid: string): "sha256" | "sha384" | "sha512" | undefined {
  return DIGESTS[oid];
}

export function verifySignerSignature(
  signer: SignerView,
  cert: X509Certificate,
  content: Uint8Array,
): Step<null> {
  const hash = digestOf(signer.digestOid);
  if (!hash) return refuse("signature", `digest algorithm ${signer.digestOid} is not accepted`);
  if (signer.signatureOid !== RSA_ENCRYPTION && RSA_WITH[signer.signatureOid] !== hash)
    return refuse(
      "signature",
      `signature algorithm ${signer.signatureOid} is not accepted with digest ${hash}`,
    );
  if (cert.publicKey.asymmetricKeyType !== "rsa")
    return refuse("signature", `the signer's key is ${cert.publicKey.asymmetricKeyType}, not RSA`);

  let covered = content;
  if (signer.signedAttrs) {
    // With signed attributes the signature covers them, and they bind the content through
    // messageDigest: without this check any content would pass under a replayed signature.
    const { messageDigests, contentTypes, der } = signer.signedAttrs;
    if (messageDigests.length !== 1)
      return refuse("signature", `${messageDigests.length} messageDigest attributes, expected one`);
    const digest = createHash(hash).update(content).digest();
    if (!digest.equals(Buffer.from(messageDigests[0] as Uint8Array)))
      return refuse("signature", "messageDigest does not match the content (tampered)");
    if (contentTypes.some((t) => t !== "1.2.840.113549.1.7.1"))
      return refuse("signature", "contentType attribute is not data");
    covered = der;
  }
  let ok = false;
  try {
    ok = verify(
      hash,
      covered,
      { key: cert.publicKey, padding: constants.RSA_PKCS1_PADDING },
      signer.signature,
    );
  } catch {
    // OpenSSL refuses some malformed signatures outright instead of answering false.
  }
  return ok
    ? { ok: true, value: null }
    : refuse(
        "signature",
        signer.signedAttrs
          ? "signature does not verify over the signed attributes"
          : "signature does not verify over the content (tampered, or another key)",
      );
}
