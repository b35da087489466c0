import type * as Pkijs from "pkijs";
import { type CertView, OID } from "./certView";
import {
  type Constraints,
  constraintProblem,
  describeName,
  GN,
  type Name,
  sanEntryProblem,
  subtreeProblem,
} from "./names";

/**
 * Certification path validation, RFC 5280 §6.1, of a path built by ./chain.ts (signer first,
 * trust anchor last). The anchor's own constraints (basicConstraints, keyUsage, name
 * constraints, validity, critical extensions) are enforced as for any CA (RFC 5937), since
 * Azure's roots are certificates we hold, not bare keys. Policy processing (§6.1.3 d-f) is not
 * implemented: a path with policy constraints, mappings or inhibitAnyPolicy is refused rather
 * than half-validated. Pure: the certificates come parsed, the time comes in.
 */

/** id-kp-serverAuth: Azure's metadata certificate is a TLS certificate (serverAuth, clientAuth). */
export const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const ANY_EKU = "2.5.29.37.0";

/** Extensions whose meaning is checked here, so that they may be critical. */
const PROCESSED = new Set<string>([
  OID.basicConstraints,
  OID.keyUsage,
  OID.extKeyUsage,
  OID.subjectAltName,
  OID.nameConstraints,
]);
/** RFC 5280 says conforming CAs MUST mark these non-critical. */
const NEVER_CRITICAL = new Set<string>([
  OID.authorityKeyId,
  OID.subjectKeyId,
  OID.authorityInfoAccess,
]);
const POLICY = [OID.policyConstraints, OID.policyMappings, OID.inhibitAnyPolicy];
/** A certificate with more names or subtrees than this is not Azure's, and is not compared. */
const MAX_NAMES = 256;

export interface PathPolicy {
  /** Time of validation (epoch ms); certificates carry whole seconds, so the instant is too. */
  at: number;
  /** The extendedKeyUsage the signer must allow when it has that extension. */
  purpose: string;
}

const KU = { digitalSignature: 0x80, nonRepudiation: 0x40, keyCertSign: 0x04 } as const;

/** The problem with the path, naming the certificate, or undefined when it is valid. */
export function pathProblem(path: readonly CertView[], policy: PathPolicy): string | undefined {
  for (const cert of path) {
    const p = certificateProblem(cert, policy.at);
    if (p) return `${cert.label}: ${p}`;
  }
  for (const cert of path.slice(1)) {
    const p = issuerProblem(cert);
    if (p) return `issuer ${cert.label}: ${p}`;
  }
  const signer = path[0] as CertView;
  const s = signerProblem(signer, policy.purpose);
  if (s) return `signer ${signer.label}: ${s}`;
  return pathLengthProblem(path) ?? nameConstraintsProblem(path);
}

export function certificateProblem(cert: CertView, at: number): string | undefined {
  const second = Math.floor(at / 1000) * 1000;
  // Written so that a validity that does not parse (NaN) fails too.
  if (!(second >= Date.parse(cert.x509.validFrom) && second <= Date.parse(cert.x509.validTo)))
    return `not valid at ${new Date(at).toISOString()}`;
  if (cert.duplicate) return `extension ${cert.duplicate} appears twice`;
  if (cert.malformed) return `extension ${cert.malformed} does not parse`;
  if (!cert.algorithmsMatch) return "its two signature algorithm fields differ";
  if (serialProblem(cert.serial)) return `serial number ${serialProblem(cert.serial)}`;
  if (cert.issuerEmpty) return "empty issuer name";
  for (const [oid, e] of cert.ext) {
    if (POLICY.includes(oid as (typeof POLICY)[number]))
      return `policy extension ${oid} (policy processing is not implemented)`;
    if (e.critical && NEVER_CRITICAL.has(oid)) return `extension ${oid} is critical`;
    if (e.critical && !PROCESSED.has(oid)) return `unrecognised critical extension ${oid}`;
  }
  const aki = cert.ext.get(OID.authorityKeyId)?.value as Pkijs.AuthorityKeyIdentifier | undefined;
  if (!cert.selfSigned && !aki?.keyIdentifier) return "no authority key identifier";
  if (cert.sanNames.length > MAX_NAMES) return `more than ${MAX_NAMES} subject alternative names`;
  for (const name of cert.sanNames) {
    const p = sanEntryProblem(name);
    if (p) return `subject alternative name ${describeName(name)} ${p}`;
  }
  if (cert.subject.length === 0 && cert.ext.get(OID.subjectAltName)?.critical !== true)
    return "empty subject without a critical subject alternative name";
  return undefined;
}

/** RFC 5280 §4.1.2.2: positive, not zero, at most 20 octets (a leading 00 for the sign aside). */
function serialProblem(serial: Uint8Array): string | undefined {
  if (serial.length === 0 || ((serial[0] as number) & 0x80) !== 0) return "is negative";
  const magnitude = serial[0] === 0 ? serial.slice(1) : serial;
  if (magnitude.every((b) => b === 0)) return "is zero";
  if (magnitude.length > 20) return "is longer than 20 octets";
  return undefined;
}

function bits(cert: CertView): number | undefined {
  const ku = cert.ext.get(OID.keyUsage)?.value as
    | { valueBlock: { valueHexView: Uint8Array } }
    | undefined;
  return ku ? (ku.valueBlock.valueHexView[0] ?? 0) : undefined;
}

function basic(cert: CertView): { critical: boolean; cA: boolean; pathLen?: number } | undefined {
  const e = cert.ext.get(OID.basicConstraints);
  if (!e) return undefined;
  const v = e.value as Pkijs.BasicConstraints;
  const pathLen = typeof v.pathLenConstraint === "number" ? v.pathLenConstraint : undefined;
  return { critical: e.critical, cA: v.cA === true, ...(pathLen === undefined ? {} : { pathLen }) };
}

/** §6.1.4 (k), (n); §4.2.1.9 (critical in CA certificates), §4.2.1.2 (SKI in CA certificates). */
export function issuerProblem(cert: CertView): string | undefined {
  const bc = basic(cert);
  if (!bc?.cA) return "is not a CA (basicConstraints cA is not set)";
  if (!bc.critical) return "basicConstraints is not critical";
  const ku = bits(cert);
  if (ku === undefined || (ku & KU.keyCertSign) === 0)
    return "key usage does not allow keyCertSign";
  if (cert.subject.length === 0) return "empty subject";
  if (!cert.ext.has(OID.subjectKeyId)) return "no subject key identifier";
  const nc = cert.ext.get(OID.nameConstraints);
  if (nc && !nc.critical) return "name constraints are not critical";
  return undefined;
}

/** The signer is an end entity whose key may sign, for the purpose asked. */
function signerProblem(cert: CertView, purpose: string): string | undefined {
  if (basic(cert)?.cA) return "is a CA, not an end entity";
  const ku = bits(cert);
  if (ku !== undefined && (ku & KU.keyCertSign) !== 0) return "asserts keyCertSign but is not a CA";
  if (ku !== undefined && (ku & (KU.digitalSignature | KU.nonRepudiation)) === 0)
    return "key usage does not allow digitalSignature";
  const eku = cert.ext.get(OID.extKeyUsage)?.value as Pkijs.ExtKeyUsage | undefined;
  if (eku && eku.keyPurposes.length === 0) return "extended key usage is empty";
  if (eku && !eku.keyPurposes.some((p) => p === purpose || p === ANY_EKU))
    return `extended key usage does not allow ${purpose}`;
  if (cert.ext.has(OID.nameConstraints)) return "name constraints in an end-entity certificate";
  return undefined;
}

/** §6.1.4 (l), (m): from the anchor down; a self-issued CA does not count, the anchor neither. */
function pathLengthProblem(path: readonly CertView[]): string | undefined {
  let remaining = Number.POSITIVE_INFINITY;
  for (let i = path.length - 1; i >= 1; i--) {
    const cert = path[i] as CertView;
    if (i < path.length - 1 && !cert.selfIssued) {
      if (remaining <= 0)
        return `${cert.label} exceeds the path length constraint of a CA above it`;
      remaining--;
    }
    const pathLen = basic(cert)?.pathLen;
    if (pathLen !== undefined && pathLen < remaining) remaining = pathLen;
  }
  return undefined;
}

/** §6.1.3 (b), §6.1.4 (g): each CA's constraints apply to every certificate below it. */
function nameConstraintsProblem(path: readonly CertView[]): string | undefined {
  const layers: Constraints[] = [];
  for (let i = path.length - 1; i >= 0; i--) {
    const cert = path[i] as CertView;
    if (layers.length > 0 && (i === 0 || !cert.selfIssued)) {
      const p = constraintProblem(namesOf(cert), layers);
      if (p) return `${cert.label}: ${p}`;
    }
    if (i === 0) break;
    if (!cert.nameConstraints) continue;
    const layer = constraintsOf(cert.nameConstraints);
    if (typeof layer === "string") return `${cert.label}: name constraint ${layer}`;
    layers.push(layer);
  }
  return undefined;
}

function namesOf(cert: CertView): Name[] {
  const names: Name[] = [...cert.sanNames];
  if (cert.subject.length > 0) names.push({ type: GN.directory, value: cert.subject });
  for (const email of cert.emailsInSubject) names.push({ type: GN.rfc822, value: email });
  return names;
}

/** The subtrees, or why they are unusable: malformed, minimum/maximum set, too many, none. */
function constraintsOf(nc: NonNullable<CertView["nameConstraints"]>): Constraints | string {
  const count = nc.permitted.length + nc.excluded.length;
  if (count > MAX_NAMES) return `has more than ${MAX_NAMES} subtrees`;
  if (count === 0) return "has no subtrees";
  if (nc.bounded) return "has a minimum or maximum (RFC 5280 allows neither)";
  for (const name of [...nc.permitted, ...nc.excluded]) {
    const p = subtreeProblem(name);
    if (p) return `${describeName(name)} ${p}`;
  }
  return { permitted: nc.permitted, excluded: nc.excluded };
}
