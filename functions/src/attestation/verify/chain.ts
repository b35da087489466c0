import type { X509Certificate } from "node:crypto";
import { type CertView, viewOf } from "./certView";
import { loadLibs } from "./cms";
import { pathProblem, SERVER_AUTH } from "./rfc5280";
import {
  AiaUnavailableError,
  describeCert,
  describeName,
  type IntermediateSource,
  refuse,
  type Step,
} from "./types";

/**
 * A path from the signer to a trust root, built with node:crypto's X509Certificate (OpenSSL):
 * each link is a certificate whose subject is the child's issuer, whose key verifies the
 * child's signature, and which OpenSSL agrees issued it (checkIssued: names, key identifiers,
 * keyCertSign). Several certificates may share a subject (the self-signed Microsoft TLS RSA
 * Root G2 and its copy cross-signed by DigiCert Global Root G2), so every candidate is tried,
 * depth first, until one path ends at a trust root and passes RFC 5280 path validation
 * (./rfc5280.ts: basic constraints, path length, key usage, name constraints, the signer an end
 * entity); a path that fails it is given up for the next candidate, as a name-constrained CA
 * may sit on one path to the root and not on another. Intermediates are never pinned: Azure
 * changes them without notice, so they come from the document, the bundle, a cache or AIA.
 */

/** Signer, intermediates, cross-signed root, root: Azure's longest path has four. */
export const MAX_DEPTH = 6;
/** Issuer checks per verification: a hostile bag of mutually-signed CAs cannot make it spin. */
const MAX_CANDIDATES = 64;

export interface ChainInputs {
  signer: X509Certificate;
  trustRoots: readonly X509Certificate[];
  /** The document's own certificate bag (Azure's holds only the signer). */
  documentCerts: readonly X509Certificate[];
  intermediates: IntermediateSource;
  /** The document's createdOn: every certificate on the path must be valid then. */
  at: number;
  /** The extended key usage the signer must allow if it names any (default serverAuth, Azure's). */
  purpose?: string;
}

/** The path, signer first and trust root last, or the refusal naming the certificate at fault. */
export async function buildChain(inputs: ChainInputs): Promise<Step<X509Certificate[]>> {
  const { signer, at } = inputs;
  const invalid = validityProblem(signer, at);
  if (invalid) return refuse("chain", invalid);
  const search = new Search(inputs);
  const path = await search.extend([signer]);
  if (path) return { ok: true, value: path };
  if (search.unavailable) return refuse("unavailable", search.unavailable);
  return refuse("chain", search.problem ?? `no path to a trust root from ${describeCert(signer)}`);
}

class Search {
  /** The first specific reason a candidate was unusable (time, not a CA, loop, depth). */
  private specific: string | undefined;
  /** Why the intermediate source could not answer, when it could not. */
  unavailable: string | undefined;
  private readonly roots: Set<string>;
  private readonly fromSource = new Map<string, X509Certificate[]>();
  private checks = 0;
  private readonly views = new Map<string, CertView>();
  private deepestOrphan: { depth: number; cert: X509Certificate } | undefined;

  constructor(private readonly inputs: ChainInputs) {
    this.roots = new Set(inputs.trustRoots.map((r) => r.fingerprint256));
  }

  async extend(path: X509Certificate[]): Promise<X509Certificate[] | undefined> {
    const cert = path[path.length - 1] as X509Certificate;
    if (this.roots.has(cert.fingerprint256)) {
      const problem = await this.validate(path);
      if (!problem) return path;
      this.note(problem);
      return undefined;
    }
    if (path.length >= MAX_DEPTH) {
      this.note(`more than ${MAX_DEPTH} certificates from the signer to ${describeCert(cert)}`);
      return undefined;
    }
    const tried = new Set<string>();
    let issuers = 0;
    // Cheapest and most trusted first; the intermediate source (maybe a network fetch) only
    // when neither the trust store nor the document holds an issuer that leads to a root.
    const tiers = [
      async () => this.inputs.trustRoots,
      async () => this.inputs.documentCerts,
      () => this.sourceIssuers(cert),
    ];
    for (const tier of tiers) {
      for (const candidate of await tier()) {
        if (tried.has(candidate.fingerprint256)) continue;
        tried.add(candidate.fingerprint256);
        if (candidate.subject !== cert.issuer) continue;
        if (++this.checks > MAX_CANDIDATES) {
          this.note(`gave up after ${MAX_CANDIDATES} candidate issuers`);
          return undefined;
        }
        if (!issued(candidate, cert)) continue;
        issuers++;
        const problem = this.unusable(candidate, cert, path);
        if (problem) {
          this.note(problem);
          continue;
        }
        const found = await this.extend([...path, candidate]);
        if (found) return found;
      }
    }
    if (issuers === 0 && (this.deepestOrphan?.depth ?? -1) < path.length)
      this.deepestOrphan = { depth: path.length, cert };
    return undefined;
  }

  /** What to tell: a specific problem met on the way, else where the path ran out of issuers. */
  get problem(): string | undefined {
    const orphan = this.deepestOrphan?.cert;
    return (
      this.specific ??
      (orphan &&
        `no issuer found for ${describeCert(orphan)} (issuer ${describeName(orphan.issuer)})`)
    );
  }

  private unusable(
    candidate: X509Certificate,
    child: X509Certificate,
    path: readonly X509Certificate[],
  ): string | undefined {
    if (candidate.fingerprint256 === child.fingerprint256)
      return `the path ends at ${describeCert(child)}, self-signed and not a trust root`;
    if (path.some((p) => p.fingerprint256 === candidate.fingerprint256))
      return `loop: ${describeCert(candidate)} already on the path`;
    const invalid = validityProblem(candidate, this.inputs.at);
    if (invalid) return invalid;
    // A trust root is an anchor, not a certificate we judge; any other issuer must be a CA.
    if (!candidate.ca && !this.roots.has(candidate.fingerprint256))
      return `issuer ${describeCert(candidate)} of ${describeCert(child)} is not a CA`;
    return undefined;
  }

  /** RFC 5280 path validation of a path that reached a trust root; undefined when it passes. */
  private async validate(path: readonly X509Certificate[]): Promise<string | undefined> {
    const libs = await loadLibs();
    const views = path.map((c) => {
      let view = this.views.get(c.fingerprint256);
      if (!view) {
        try {
          view = viewOf(libs, c);
        } catch (e) {
          return `${describeCert(c)} does not parse: ${(e as Error).message}`;
        }
        this.views.set(c.fingerprint256, view);
      }
      return view;
    });
    const unreadable = views.find((v): v is string => typeof v === "string");
    if (unreadable) return unreadable;
    return pathProblem(views as CertView[], {
      at: this.inputs.at,
      purpose: this.inputs.purpose ?? SERVER_AUTH,
    });
  }

  private async sourceIssuers(cert: X509Certificate): Promise<readonly X509Certificate[]> {
    const known = this.fromSource.get(cert.fingerprint256);
    if (known) return known;
    let found: X509Certificate[] = [];
    try {
      found = await this.inputs.intermediates.issuersOf(cert);
    } catch (e) {
      this.unavailable ??=
        e instanceof AiaUnavailableError
          ? e.message
          : `intermediate source failed for ${describeCert(cert)}: ${(e as Error).message}`;
    }
    this.fromSource.set(cert.fingerprint256, found);
    return found;
  }

  private note(problem: string): void {
    this.specific ??= problem;
  }
}

/** Did `issuer` issue `child`? Name, OpenSSL's issuer check, and the signature. */
function issued(issuer: X509Certificate, child: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false; // a key OpenSSL cannot use for this signature is not this child's issuer
  }
}

/** Why `cert` is not valid at `at`, or undefined when it is. */
export function validityProblem(cert: X509Certificate, at: number): string | undefined {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (Number.isNaN(from) || Number.isNaN(to))
    return `${describeCert(cert)} has a validity period that does not parse`;
  // Certificates state whole seconds: an instant is in the second it falls in.
  const second = Math.floor(at / 1000) * 1000;
  if (second < from || second > to)
    return `${describeCert(cert)} is not valid at ${new Date(at).toISOString()} (valid ${new Date(from).toISOString()} to ${new Date(to).toISOString()})`;
  return undefined;
}
