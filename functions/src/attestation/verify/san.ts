import type { X509Certificate } from "node:crypto";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import { refuse, type Step } from "./types";

/**
 * Is the signer Azure's metadata service? Azure's IMDS documentation ("Signature Validation
 * Guidance") says to check the signing certificate's Subject Alternative Name against the
 * cloud's metadata domain, accepting any subdomain, and not to pin intermediates (they change
 * without notice). Example: "DNS Name=eastus.metadata.azure.com, DNS Name=metadata.azure.com".
 */

/** The metadata domain of each cloud, by the host of its ARM endpoint (same IMDS doc). */
export const SAN_DOMAINS_BY_ARM_ENDPOINT: Readonly<Record<string, readonly string[]>> = {
  "management.azure.com": ["metadata.azure.com"],
  "management.usgovcloudapi.net": ["metadata.azure.us"],
  "management.chinacloudapi.cn": ["metadata.azure.cn"],
  "management.microsoftazure.de": ["metadata.microsoftazure.de"],
};

const ALL_DOMAINS = [...new Set(Object.values(SAN_DOMAINS_BY_ARM_ENDPOINT).flat())];

/**
 * The SAN domains for the coordinator's ARM endpoint (a URL or a host). An endpoint we do not
 * know (the fabric simulator's loopback ARM, a private stand-in, a cloud added later) gets all
 * four: each is a Microsoft metadata domain, and the chain to a trust root is still required,
 * so widening the list cannot admit a certificate Microsoft's CAs did not issue for IMDS.
 */
export function sanDomainsForArmEndpoint(armEndpoint: string): string[] {
  const text = armEndpoint.trim();
  const host =
    /^https?:\/\//i.test(text) && URL.canParse(text)
      ? new URL(text).hostname
      : (text.split(/[/:]/)[0] ?? "");
  return [...(SAN_DOMAINS_BY_ARM_ENDPOINT[host.toLowerCase().replace(/\.$/, "")] ?? ALL_DOMAINS)];
}

/**
 * The DNS names of a certificate's SAN. Node prints the SAN as "DNS:a, DNS:b", quoting (as a
 * JSON string) any name with characters that could be confused with that syntax, so a name
 * holding ", DNS:metadata.azure.com" stays one name here.
 */
export function sanDnsNames(cert: Pick<X509Certificate, "subjectAltName">): string[] {
  const text = cert.subjectAltName;
  if (!text) return [];
  const names: string[] = [];
  let i = 0;
  while (i < text.length) {
    const colon = text.indexOf(":", i);
    if (colon < 0) break;
    const type = text.slice(i, colon);
    let value: string | undefined;
    let end: number;
    if (text[colon + 1] === '"') {
      end = closingQuote(text, colon + 2);
      if (end < 0) break;
      // Not one JSON string: a name that cannot be read matches no domain, and is no reason
      // to throw (verifyAttestedDocument would report that as "unavailable": retry).
      const unquoted = parseJsonWith(z.string(), text.slice(colon + 1, end + 1));
      value = unquoted.ok ? unquoted.value : undefined;
      end += 1;
    } else {
      const next = text.indexOf(", ", colon + 1);
      end = next < 0 ? text.length : next;
      value = text.slice(colon + 1, end);
    }
    if (type === "DNS" && value !== undefined) names.push(value);
    i = end + 2; // past ", "
  }
  return names;
}

function closingQuote(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

/** `name` is `domain` or a subdomain of it: label boundary, case-insensitive, trailing dot ignored. */
export function inDomain(name: string, domain: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, "");
  const d = domain.toLowerCase().replace(/\.$/, "");
  return d.length > 0 && (n === d || n.endsWith(`.${d}`));
}

/**
 * Every DNS name in the signer's SAN must be in one of `domains`, and there must be one at
 * least: a certificate also naming another domain was not issued for the metadata service alone.
 */
export function checkSignerSan(cert: X509Certificate, domains: readonly string[]): Step<string[]> {
  const names = sanDnsNames(cert);
  if (names.length === 0)
    return refuse("san", "the signer's certificate has no DNS name in its SAN");
  const stray = names.filter((n) => !domains.some((d) => inDomain(n, d)));
  if (stray.length > 0)
    return refuse(
      "san",
      `signer SAN ${stray.slice(0, 3).join(", ")} is not in ${domains.join(", ") || "(no domain configured)"}`,
    );
  return { ok: true, value: names };
}
