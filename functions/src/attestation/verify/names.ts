/**
 * Names for path validation (RFC 5280 §4.2.1.6, §4.2.1.10, §6.1.3 b-c, §6.1.4 g): the syntax
 * of a certificate's subjectAltName entries, and name constraints, as plain values (the parsing
 * from DER is ./certView.ts's). Pure: no I/O, no library.
 */

/** GeneralName CHOICE tags (RFC 5280 §4.2.1.6). */
export const GN = {
  otherName: 0,
  rfc822: 1,
  dns: 2,
  x400: 3,
  directory: 4,
  edi: 5,
  uri: 6,
  ip: 7,
  rid: 8,
} as const;

/** A directory name as its attributes, in order: type OID and normalised value. */
export type Dn = ReadonlyArray<{ type: string; value: string }>;

export type Name =
  | { type: 1 | 2 | 6; value: string }
  | { type: 7; value: Uint8Array }
  | { type: 4; value: Dn }
  | { type: 0 | 3 | 5 | 8; value: null };

export interface Constraints {
  permitted: readonly Name[];
  excluded: readonly Name[];
}

/** The forms this validator processes; a constraint on any other form cannot be evaluated. */
const PROCESSED = new Set<number>([GN.rfc822, GN.dns, GN.directory, GN.ip]);

/** RFC 1034 "preferred name syntax" (letters, digits, hyphens), a leading "*." for a pattern. */
export function dnsSyntaxProblem(name: string, allowWildcard: boolean): string | undefined {
  const bare = allowWildcard && name.startsWith("*.") ? name.slice(2) : name;
  const labels = bare.split(".");
  if (bare.length === 0 || bare.length > 253) return "is not a DNS name";
  if (labels.some((l) => !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l)))
    return "is not in DNS preferred name syntax";
  // An all-numeric last label is an IP address written as a DNS name, not a host name.
  if (/^[0-9]+$/.test(labels[labels.length - 1] as string)) return "is an IP address as a DNS name";
  return undefined;
}

function emailSyntaxProblem(value: string): string | undefined {
  const at = value.split("@");
  if (at.length !== 2 || !at[0]) return "is not a mailbox";
  return dnsSyntaxProblem(at[1] as string, false);
}

/** Why a subjectAltName entry is malformed, or undefined. */
export function sanEntryProblem(name: Name): string | undefined {
  if (name.type === GN.dns) return dnsSyntaxProblem(name.value, true);
  if (name.type === GN.ip)
    return name.value.length === 4 || name.value.length === 16
      ? undefined
      : "is not an IPv4 or IPv6 address";
  if (name.type === GN.rfc822) return emailSyntaxProblem(name.value);
  return undefined;
}

/** Why a subtree's base is not a valid constraint of its form, or undefined. */
export function subtreeProblem(base: Name): string | undefined {
  if (base.type === GN.dns)
    return base.value === "" ? undefined : dnsSyntaxProblem(base.value, false);
  if (base.type === GN.ip) {
    const half = base.value.length / 2;
    if (half !== 4 && half !== 16) return "is not an address and mask (CIDR)";
    const mask = [...base.value.slice(half)].map((b) => b.toString(2).padStart(8, "0")).join("");
    return /^1*0*$/.test(mask) ? undefined : "has a mask that is not a prefix";
  }
  if (base.type === GN.rfc822) {
    if (base.value.includes("@")) return emailSyntaxProblem(base.value);
    return dnsSyntaxProblem(base.value.startsWith(".") ? base.value.slice(1) : base.value, false);
  }
  return undefined;
}

const lower = (s: string) => s.toLowerCase().replace(/\.$/, "");

function dnsWithin(name: string, base: string): boolean {
  const n = lower(name);
  const b = lower(base);
  return b === "" || n === b || n.endsWith(`.${b}`);
}

function ipWithin(addr: Uint8Array, base: Uint8Array): boolean {
  const half = base.length / 2;
  if (addr.length !== half) return false;
  return addr.every(
    (b, i) =>
      (b & (base[half + i] as number)) === ((base[i] as number) & (base[half + i] as number)),
  );
}

function emailWithin(mailbox: string, base: string): boolean {
  const at = mailbox.lastIndexOf("@");
  const local = mailbox.slice(0, at);
  const host = lower(mailbox.slice(at + 1));
  if (base.includes("@")) {
    const bAt = base.lastIndexOf("@");
    return local === base.slice(0, bAt) && host === lower(base.slice(bAt + 1));
  }
  if (base.startsWith(".")) return host.endsWith(lower(base));
  return host === lower(base);
}

function dnWithin(name: Dn, base: Dn): boolean {
  return (
    base.length <= name.length &&
    base.every((a, i) => a.type === name[i]?.type && a.value === name[i]?.value)
  );
}

/** Is `name` inside the subtree `base` (same form)? */
function within(name: Name, base: Name): boolean {
  if (name.type !== base.type) return false;
  switch (name.type) {
    case GN.dns:
      return base.type === GN.dns && dnsWithin(name.value, base.value);
    case GN.ip:
      return base.type === GN.ip && ipWithin(name.value, base.value);
    case GN.rfc822:
      return base.type === GN.rfc822 && emailWithin(name.value, base.value);
    case GN.directory:
      return base.type === GN.directory && dnWithin(name.value, base.value);
    default:
      return false;
  }
}

/**
 * Could `name` stand for a name inside the excluded `base`? A DNS pattern "*.example.com" covers
 * "bar.example.com": excluding the latter must exclude the pattern (CVE-2025-61727).
 */
function touchesExcluded(name: Name, base: Name): boolean {
  if (within(name, base)) return true;
  if (name.type !== GN.dns || base.type !== GN.dns || !name.value.startsWith("*.")) return false;
  return dnsWithin(base.value, name.value.slice(2));
}

const FORM_NAMES: Record<number, string> = {
  0: "otherName",
  1: "rfc822Name",
  2: "dNSName",
  3: "x400Address",
  4: "directoryName",
  5: "ediPartyName",
  6: "uniformResourceIdentifier",
  7: "iPAddress",
  8: "registeredID",
};

export function describeName(name: Name): string {
  const form = FORM_NAMES[name.type] ?? "name";
  if (name.type === GN.ip) return `${form} ${[...name.value].join(".")}`;
  if (name.type === GN.directory) return `${form} ${name.value.map((a) => a.value).join(",")}`;
  if (name.value === null) return form;
  return `${form} ${name.value.slice(0, 80)}`;
}

/**
 * Why the names of one certificate break the constraints gathered from the CAs above it: an
 * excluded subtree holds one, or a CA that permits subtrees of a name's form permits none that
 * holds it (permitted subtrees narrow, CA by CA: each `layers` entry is one CA's). A constraint
 * on a form this validator does not process, met by a name of that form, refuses the path as
 * §4.2.1.10 requires ("MUST either process the constraint or reject the certificate").
 */
export function constraintProblem(
  names: readonly Name[],
  layers: readonly Constraints[],
): string | undefined {
  for (const name of names) {
    for (const layer of layers) {
      const all = [...layer.permitted, ...layer.excluded];
      if (!PROCESSED.has(name.type) && all.some((c) => c.type === name.type))
        return `${describeName(name)} meets a name constraint of a form that is not processed`;
      if (layer.excluded.some((c) => touchesExcluded(name, c)))
        return `${describeName(name)} is in an excluded subtree`;
      const ofForm = layer.permitted.filter((c) => c.type === name.type);
      if (ofForm.length > 0 && !ofForm.some((c) => within(name, c)))
        return `${describeName(name)} is outside the permitted subtrees`;
    }
  }
  return undefined;
}
