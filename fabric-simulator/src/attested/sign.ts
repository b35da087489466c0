import { createHash, type KeyObject, sign, type X509Certificate } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/**
 * Attested documents as Azure's IMDS writes them (checked against a real one with openssl
 * asn1parse): ContentInfo signedData; SignedData version 1; digestAlgorithms SET {
 * sha256WithRSAEncryption, NULL } (the signature OID where RFC 5652 wants a digest OID, as
 * Azure does); encapContentInfo data with the JSON in a primitive OCTET STRING; certificates
 * holding only the signer's; one SignerInfo v1 naming it by issuer and serial, digest
 * sha256WithRSAEncryption, signature rsaEncryption, no signed attributes, RSA PKCS#1 v1.5 over
 * SHA-256 of the JSON bytes.
 */

const OID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const OID_DATA = "1.2.840.113549.1.7.1";
const OID_RSA = "1.2.840.113549.1.1.1";
export const OID_SHA256_WITH_RSA = "1.2.840.113549.1.1.11";

const HASH_OF: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "1.2.840.113549.1.1.5": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
};

export interface DocumentSigner {
  cert: X509Certificate;
  keys: { privateKey: KeyObject };
}

export interface SignOptions {
  /** The certificate bag, in order (default: the signer's certificate alone, as Azure). */
  certificates?: X509Certificate[];
  /** More SignerInfos over the same content (Azure has one: a verifier must refuse more). */
  extraSigners?: DocumentSigner[];
  /** Sign over contentType + messageDigest attributes instead of the content (Azure does not). */
  signedAttrs?: boolean;
  /** The SignerInfo digest algorithm OID (default sha256WithRSAEncryption, Azure's). */
  digestOid?: string;
  /** How SignerInfos name their certificate: issuer and serial (default, Azure's) or key id (v3). */
  sid?: "issuerAndSerialNumber" | "subjectKeyIdentifier";
}

/** The document's `signature` field: base64 of the DER ContentInfo. */
export function signAttestedDocument(
  content: object | string,
  signer: DocumentSigner,
  opts: SignOptions = {},
): string {
  const bytes = Buffer.from(typeof content === "string" ? content : JSON.stringify(content));
  const digestOid = opts.digestOid ?? OID_SHA256_WITH_RSA;
  const hash = HASH_OF[digestOid];
  if (!hash) throw new Error(`signAttestedDocument: no hash known for ${digestOid}`);

  const eci = new pkijs.EncapsulatedContentInfo({ eContentType: OID_DATA });
  // Assigned after construction: pkijs's constructor would split it into a constructed OCTET
  // STRING of 64 kB pieces, and Azure's is primitive.
  eci.eContent = new asn1js.OctetString({ valueHex: bytes });
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [algorithm(digestOid)],
    encapContentInfo: eci,
    certificates: (opts.certificates ?? [signer.cert]).map((c) => pkijs.Certificate.fromBER(c.raw)),
    signerInfos: [signer, ...(opts.extraSigners ?? [])].map((s) =>
      signerInfo(s, bytes, {
        digestOid,
        hash,
        withAttrs: opts.signedAttrs === true,
        sid: opts.sid,
      }),
    ),
  });
  const info = new pkijs.ContentInfo({
    contentType: OID_SIGNED_DATA,
    content: signedData.toSchema(true),
  });
  return Buffer.from(info.toSchema().toBER()).toString("base64");
}

function signerInfo(
  s: DocumentSigner,
  content: Buffer,
  how: { digestOid: string; hash: string; withAttrs: boolean; sid: SignOptions["sid"] },
): pkijs.SignerInfo {
  const { digestOid, hash, withAttrs } = how;
  const cert = pkijs.Certificate.fromBER(s.cert.raw);
  const byKeyId = how.sid === "subjectKeyIdentifier";
  const info = new pkijs.SignerInfo({
    // RFC 5652 §5.3: version 3 when the sid is a subjectKeyIdentifier ([0] IMPLICIT OCTET STRING).
    version: byKeyId ? 3 : 1,
    sid: byKeyId
      ? new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: keyIdOf(cert) })
      : new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    digestAlgorithm: algorithm(digestOid),
    signatureAlgorithm: algorithm(OID_RSA),
  });
  let covered: Buffer = content;
  if (withAttrs) {
    const attrs = new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: [
        new pkijs.Attribute({
          type: "1.2.840.113549.1.9.3",
          values: [new asn1js.ObjectIdentifier({ value: OID_DATA })],
        }),
        new pkijs.Attribute({
          type: "1.2.840.113549.1.9.4",
          values: [new asn1js.OctetString({ valueHex: createHash(hash).update(content).digest() })],
        }),
      ],
    });
    info.signedAttrs = attrs;
    // Signed as a SET OF (tag 0x31), carried as [0] IMPLICIT (RFC 5652 §5.4).
    covered = Buffer.from(attrs.toSchema().toBER());
    covered[0] = 0x31;
  }
  info.signature = new asn1js.OctetString({ valueHex: sign(hash, covered, s.keys.privateKey) });
  return info;
}

function keyIdOf(cert: pkijs.Certificate): Uint8Array {
  const ski = cert.extensions?.find((e) => e.extnID === "2.5.29.14")?.parsedValue;
  if (!(ski instanceof asn1js.OctetString)) throw new Error("the signer has no subject key id");
  return new Uint8Array(ski.valueBlock.valueHexView);
}

function algorithm(oid: string): pkijs.AlgorithmIdentifier {
  return new pkijs.AlgorithmIdentifier({ algorithmId: oid, algorithmParams: new asn1js.Null() });
}

/**
 * The same document with one byte of its signed JSON changed (the vmId's first character, or
 * the JSON's first byte when there is no vmId), the signature left as it was: tampering.
 */
export function tamperAttestedDocument(signature: string): string {
  const der = Buffer.from(signature, "base64");
  const info = pkijs.ContentInfo.fromBER(der);
  const signed = new pkijs.SignedData({ schema: info.content });
  const octets = signed.encapContentInfo.eContent as asn1js.OctetString;
  const view = octets.valueBlock.valueHexView;
  // Find the content in the DER and change it in place, so nothing else moves.
  const at = der.indexOf(Buffer.from(view));
  if (at < 0) throw new Error("tamperAttestedDocument: content not found");
  const vmId = Buffer.from(view).indexOf('"vmId":"');
  const target = at + (vmId >= 0 ? vmId + 8 : 0);
  der[target] = der[target] === 0x31 ? 0x32 : 0x31;
  return der.toString("base64");
}

/** `11/30/20 21:19:19 -0000`: IMDS's timestamp, in UTC. */
export function imdsTimestamp(at: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(at.getUTCMonth() + 1)}/${p(at.getUTCDate())}/${p(at.getUTCFullYear() % 100)} ${p(at.getUTCHours())}:${p(at.getUTCMinutes())}:${p(at.getUTCSeconds())} -0000`;
}

/** The signed JSON, with Azure's fields in Azure's order (keys sorted) and its empty strings. */
export function attestedContent(c: {
  vmId: string;
  subscriptionId: string;
  nonce: string;
  createdOn: Date;
  lifetimeMs?: number;
  sku?: string;
}): string {
  const expiresOn = new Date(c.createdOn.getTime() + (c.lifetimeMs ?? 6 * 3_600_000));
  return JSON.stringify({
    licenseType: "",
    nonce: c.nonce,
    plan: { name: "", product: "", publisher: "" },
    sku: c.sku ?? "",
    subscriptionId: c.subscriptionId,
    timeStamp: { createdOn: imdsTimestamp(c.createdOn), expiresOn: imdsTimestamp(expiresOn) },
    vmId: c.vmId,
  });
}
