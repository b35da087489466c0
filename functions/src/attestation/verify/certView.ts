import type { X509Certificate } from "node:crypto";
import type * as Asn1js from "asn1js";
import type * as Pkijs from "pkijs";
import { type Dn, GN, type Name } from "./names";
import { describeCert } from "./types";

/**
 * What path validation reads from one certificate, taken from its DER with pkijs (OpenSSL, via
 * node:crypto, exposes neither critical flags nor pathLenConstraint nor name constraints). An
 * extension that does not parse, strictly, is a `malformed` entry, never a silent default.
 */

export const OID = {
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  nameConstraints: "2.5.29.30",
  authorityKeyId: "2.5.29.35",
  subjectKeyId: "2.5.29.14",
  authorityInfoAccess: "1.3.6.1.5.5.7.1.1",
  policyConstraints: "2.5.29.36",
  policyMappings: "2.5.29.33",
  inhibitAnyPolicy: "2.5.29.54",
  emailAddress: "1.2.840.113549.1.9.1",
} as const;

export interface Ext {
  critical: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: pkijs's parsed value, read by ./rfc5280.ts per OID
  value: any;
}

export interface CertView {
  x509: X509Certificate;
  label: string;
  subject: Dn;
  issuerEmpty: boolean;
  /** Subject and issuer the same name (RFC 5280 §6.1: "self-issued"). */
  selfIssued: boolean;
  /** Its signature verifies with its own key (whatever its names say). */
  selfSigned: boolean;
  /** Extensions by OID; `duplicate` names an OID met twice, `malformed` one that did not parse. */
  ext: Map<string, Ext>;
  duplicate?: string;
  malformed?: string;
  /** Signature algorithm inside the TBSCertificate equals the outer one (OID and parameters). */
  algorithmsMatch: boolean;
  serial: Uint8Array;
  /** Subject emailAddress attributes and subjectAltName entries, for name constraints. */
  sanNames: Name[];
  emailsInSubject: string[];
  /** The nameConstraints subtrees as names; `bounded`: a subtree sets minimum or maximum. */
  nameConstraints?: { permitted: Name[]; excluded: Name[]; bounded: boolean };
}

type Libs = { pkijs: typeof Pkijs; asn1js: typeof Asn1js };

export function viewOf({ pkijs, asn1js }: Libs, x509: X509Certificate): CertView {
  const c = pkijs.Certificate.fromBER(new Uint8Array(x509.raw));
  const view: CertView = {
    x509,
    label: describeCert(x509),
    subject: dn(c.subject),
    issuerEmpty: c.issuer.typesAndValues.length === 0,
    selfIssued: c.subject.isEqual(c.issuer),
    selfSigned: false,
    ext: new Map(),
    algorithmsMatch: sameAlgorithm(c.signature, c.signatureAlgorithm),
    serial: new Uint8Array(c.serialNumber.valueBlock.valueHexView),
    sanNames: [],
    emailsInSubject: c.subject.typesAndValues
      .filter((t) => t.type === OID.emailAddress)
      .map((t) => String(t.value.valueBlock.value)),
  };
  try {
    view.selfSigned = x509.verify(x509.publicKey);
  } catch {
    view.selfSigned = false; // a key OpenSSL cannot use to verify this signature
  }
  for (const e of c.extensions ?? []) {
    if (view.ext.has(e.extnID)) view.duplicate ??= e.extnID;
    const raw = e.extnValue.valueBlock.valueHexView;
    const whole = asn1js.fromBER(raw);
    const value = e.parsedValue as { parsingError?: string } | undefined;
    if (whole.offset !== raw.byteLength || value?.parsingError) view.malformed ??= e.extnID;
    view.ext.set(e.extnID, { critical: e.critical, value });
  }
  const san = view.ext.get(OID.subjectAltName)?.value as Pkijs.AltName | undefined;
  if (san?.altNames) view.sanNames = san.altNames.map((g) => nameOf(pkijs, g));
  const nc = view.ext.get(OID.nameConstraints)?.value as Pkijs.NameConstraints | undefined;
  if (nc) {
    const all = [...(nc.permittedSubtrees ?? []), ...(nc.excludedSubtrees ?? [])];
    view.nameConstraints = {
      permitted: (nc.permittedSubtrees ?? []).map((t) => nameOf(pkijs, t.base)),
      excluded: (nc.excludedSubtrees ?? []).map((t) => nameOf(pkijs, t.base)),
      bounded: all.some((t) => t.minimum !== 0 || t.maximum !== undefined),
    };
  }
  return view;
}

export function nameOf(pkijs: typeof Pkijs, g: Pkijs.GeneralName): Name {
  switch (g.type) {
    case GN.rfc822:
    case GN.dns:
    case GN.uri:
      return { type: g.type as 1 | 2 | 6, value: String(g.value) };
    case GN.ip:
      return {
        type: GN.ip,
        value: new Uint8Array((g.value as Asn1js.OctetString).valueBlock.valueHexView),
      };
    case GN.directory:
      return {
        type: GN.directory,
        value: g.value instanceof pkijs.RelativeDistinguishedNames ? dn(g.value) : [],
      };
    default:
      return { type: g.type as 0 | 3 | 5 | 8, value: null };
  }
}

/** Attributes in order, values compared as RFC 5280 §7.1 roughly asks: case and spaces folded. */
function dn(name: Pkijs.RelativeDistinguishedNames): Dn {
  return name.typesAndValues.map((t) => ({
    type: t.type,
    value: String(t.value.valueBlock.value ?? "")
      .trim()
      .replace(/\s+/g, " ")
      .toLowerCase(),
  }));
}

function sameAlgorithm(a: Pkijs.AlgorithmIdentifier, b: Pkijs.AlgorithmIdentifier): boolean {
  const der = (x: Pkijs.AlgorithmIdentifier) => Buffer.from(x.toSchema().toBER());
  return der(a).equals(der(b));
}
