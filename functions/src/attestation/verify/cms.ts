import { X509Certificate } from "node:crypto";
import type * as Asn1js from "asn1js";
import type * as Pkijs from "pkijs";
import { refuse, type Step } from "./types";

/**
 * The attested document's CMS (PKCS#7) SignedData, taken apart with pkijs into plain values:
 * the signed bytes, the certificate bag (as node:crypto certificates), and each SignerInfo with
 * the certificates its sid names. pkijs only parses here; the signature and the chain are
 * checked with node:crypto (./signature.ts, ./chain.ts), so what decides trust is OpenSSL's.
 */

const OID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const OID_DATA = "1.2.840.113549.1.7.1";
const OID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4";
const OID_CONTENT_TYPE = "1.2.840.113549.1.9.3";
const OID_SUBJECT_KEY_ID = "2.5.29.14";
const OID_COMMON_NAME = "2.5.4.3";
/** Azure's bag holds one certificate; a few more are tolerated, a hostile heap is not. */
const MAX_CERTIFICATES = 16;

export interface SignedAttrsView {
  /** The attributes' DER as a SET (tag 0x31): what the signature covers (RFC 5652 §5.4). */
  der: Uint8Array;
  messageDigests: Uint8Array[];
  contentTypes: string[];
}

export interface SignerView {
  /** How the SignerInfo names its certificate, for details: issuer CN and serial, or key id. */
  sid: string;
  /** Indices into `certificates` of the certificates the sid names. */
  matches: number[];
  digestOid: string;
  signatureOid: string;
  signature: Uint8Array;
  signedAttrs?: SignedAttrsView;
}

export interface ParsedCms {
  /** The eContent bytes: the JSON Azure signed. */
  content: Uint8Array;
  certificates: X509Certificate[];
  signers: SignerView[];
}

type Libs = { pkijs: typeof Pkijs; asn1js: typeof Asn1js };
let libs: Promise<Libs> | undefined;

/**
 * pkijs and asn1js are loaded on the first verification, not when the app starts: a Function
 * app's cold start pays for every module it loads, and most invocations verify nothing.
 */
export function loadLibs(): Promise<Libs> {
  libs ??= import("./libs.js").then(
    ({ pkijs, asn1js }) => ({ pkijs, asn1js }),
    (e: unknown) => {
      libs = undefined;
      throw e;
    },
  );
  return libs;
}

/** DER ContentInfo → its SignedData's parts, or a "malformed" refusal. */
export async function parseSignedData(der: Uint8Array): Promise<Step<ParsedCms>> {
  const { pkijs, asn1js } = await loadLibs();
  try {
    return parseWith(pkijs, asn1js, der);
  } catch (e) {
    return refuse("malformed", `not CMS SignedData: ${(e as Error).message}`);
  }
}

function parseWith(pkijs: typeof Pkijs, asn1js: typeof Asn1js, der: Uint8Array): Step<ParsedCms> {
  const asn = asn1js.fromBER(der);
  if (asn.offset === -1 || asn.result.error)
    return refuse("malformed", `not DER: ${asn.result.error || "unreadable"}`);
  if (asn.offset !== der.byteLength)
    return refuse("malformed", `${der.byteLength - asn.offset} bytes after the CMS structure`);
  const info = new pkijs.ContentInfo({ schema: asn.result });
  if (info.contentType !== OID_SIGNED_DATA)
    return refuse("malformed", `content type ${info.contentType}, expected signedData`);
  const sd = new pkijs.SignedData({ schema: info.content });
  const eci = sd.encapContentInfo;
  if (eci.eContentType !== OID_DATA)
    return refuse("malformed", `encapsulated content type ${eci.eContentType}, expected data`);
  if (!eci.eContent) return refuse("malformed", "no encapsulated content (detached signature)");
  const content = octets(eci.eContent as Asn1js.OctetString);

  const bag = rawCertificates(info.content as Asn1js.Sequence);
  if (bag.length > MAX_CERTIFICATES)
    return refuse(
      "malformed",
      `${bag.length} certificates in the document, at most ${MAX_CERTIFICATES}`,
    );
  const certificates: X509Certificate[] = [];
  const parsedCerts: Pkijs.Certificate[] = [];
  for (const [i, raw] of bag.entries()) {
    try {
      certificates.push(new X509Certificate(Buffer.from(raw)));
      parsedCerts.push(pkijs.Certificate.fromBER(raw));
    } catch (e) {
      return refuse("malformed", `certificate ${i + 1} in the document: ${(e as Error).message}`);
    }
  }
  const signers = sd.signerInfos.map((si) => signerView(pkijs, si, parsedCerts));
  return { ok: true, value: { content, certificates, signers } };
}

/**
 * The certificate bag's entries as their original bytes (the [0] IMPLICIT SET OF
 * CertificateChoices of SignedData), not as pkijs re-encodes them: node:crypto must see exactly
 * what the CA signed. Attribute and other certificate formats (context-tagged) are skipped.
 */
function rawCertificates(signedData: Asn1js.Sequence): Uint8Array[] {
  const bag = signedData.valueBlock.value.find(
    (b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0,
  ) as Asn1js.Constructed | undefined;
  return (bag?.valueBlock.value ?? [])
    .filter((b) => b.idBlock.tagClass === 1)
    .map((b) => new Uint8Array(b.valueBeforeDecodeView));
}

function signerView(
  pkijs: typeof Pkijs,
  si: Pkijs.SignerInfo,
  certs: readonly Pkijs.Certificate[],
): SignerView {
  const view: SignerView = {
    sid: "",
    matches: [],
    digestOid: si.digestAlgorithm.algorithmId,
    signatureOid: si.signatureAlgorithm.algorithmId,
    signature: new Uint8Array(si.signature.valueBlock.valueHexView),
  };
  if (si.sid instanceof pkijs.IssuerAndSerialNumber) {
    const { issuer, serialNumber } = si.sid;
    view.sid = `issuer "${cnOf(issuer)}", serial ${hex(serialNumber.valueBlock.valueHexView)}`;
    // pkijs's Name comparison (type by type, strings prepared as RFC 5280 asks), not bytes.
    certs.forEach((c, i) => {
      if (c.issuer.isEqual(issuer) && c.serialNumber.isEqual(serialNumber)) view.matches.push(i);
    });
  } else {
    const keyId = subjectKeyIdOfSid(si.sid as Asn1js.BaseBlock);
    view.sid = `subject key id ${hex(keyId)}`;
    certs.forEach((c, i) => {
      const ski = c.extensions?.find((e) => e.extnID === OID_SUBJECT_KEY_ID)?.parsedValue as
        | Asn1js.OctetString
        | undefined;
      if (ski && Buffer.from(ski.valueBlock.valueHexView).equals(Buffer.from(keyId)))
        view.matches.push(i);
    });
  }
  if (si.signedAttrs) view.signedAttrs = signedAttrsView(si.signedAttrs);
  return view;
}

/** The [0] SubjectKeyIdentifier choice: an IMPLICIT OCTET STRING (or, leniently, EXPLICIT). */
function subjectKeyIdOfSid(sid: Asn1js.BaseBlock): Uint8Array {
  const block = sid as Asn1js.Constructed & Asn1js.Primitive;
  if (sid.idBlock.isConstructed) {
    const inner = block.valueBlock.value[0] as Asn1js.OctetString | undefined;
    return new Uint8Array(inner?.valueBlock.valueHexView ?? []);
  }
  return new Uint8Array(block.valueBlock.valueHexView);
}

function signedAttrsView(attrs: Pkijs.SignedAndUnsignedAttributes): SignedAttrsView {
  // The signature covers the attributes encoded as a SET OF (tag 0x31), not with the [0] tag
  // they carry in the SignerInfo (RFC 5652 §5.4). pkijs keeps the bytes as read; the tag is
  // set here rather than relying on pkijs having done it.
  const der = new Uint8Array(attrs.encodedValue.slice(0));
  der[0] = 0x31;
  const values = (oid: string) =>
    attrs.attributes.filter((a) => a.type === oid).flatMap((a) => a.values);
  return {
    der,
    messageDigests: values(OID_MESSAGE_DIGEST).map(
      (v) => new Uint8Array((v as Asn1js.OctetString).valueBlock.valueHexView ?? []),
    ),
    contentTypes: values(OID_CONTENT_TYPE).map((v) =>
      (v as Asn1js.ObjectIdentifier).valueBlock.toString(),
    ),
  };
}

/** eContent's bytes, primitive or (legal BER, not what Azure sends) constructed in pieces. */
function octets(block: Asn1js.OctetString): Uint8Array {
  if (!block.idBlock.isConstructed) return new Uint8Array(block.valueBlock.valueHexView);
  const parts = (block.valueBlock.value as Asn1js.OctetString[]).map(octets);
  return new Uint8Array(Buffer.concat(parts));
}

function cnOf(name: Pkijs.RelativeDistinguishedNames): string {
  const cn = name.typesAndValues.find((t) => t.type === OID_COMMON_NAME);
  const text = cn ? String(cn.value.valueBlock.value) : "(no CN)";
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

const hex = (bytes: ArrayBuffer | Uint8Array) =>
  Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    .toString("hex")
    .slice(0, 64);

/**
 * The one SignerInfo and the one certificate its sid names. Never "the first certificate": a
 * bag may hold a genuine Azure certificate next to the one that actually signed (the signer
 * confusion spiffe/spire fixed in PR #6998), and only the signer's certificate is judged after.
 */
export function selectSigner(
  parsed: ParsedCms,
): Step<{ signer: SignerView; cert: X509Certificate }> {
  if (parsed.signers.length !== 1)
    return refuse("signer", `${parsed.signers.length} SignerInfos, expected exactly one`);
  const signer = parsed.signers[0] as SignerView;
  if (signer.matches.length !== 1)
    return refuse(
      "signer",
      `${signer.matches.length === 0 ? "no" : signer.matches.length} certificates in the document match the signer (${signer.sid})`,
    );
  const cert = parsed.certificates[signer.matches[0] as number] as X509Certificate;
  return { ok: true, value: { signer, cert } };
}
