import { issueCertificate, newKeys, type TestCert } from "./x509";

/**
 * A stand-in for the PKI behind Azure's attested documents, made at test time with real RSA
 * keys, in the shape of Azure's 2026 hierarchy:
 *
 *   root ("Quiesce Test Global Root G2", DigiCert Global Root G2's part)
 *     └ tlsRootCrossSigned (same subject and key as tlsRoot, issued by root)
 *   tlsRoot ("Quiesce Test TLS RSA Root G2", self-signed, Microsoft TLS RSA Root G2's part)
 *     └ intermediate ("Quiesce Test TLS G2 RSA CA OCSP 01"), AIA → tlsRoot's " - xsign" copy
 *         └ leaf (CN=metadata.azure.com, SAN <region>.metadata.azure.com + metadata.azure.com),
 *           AIA → intermediate, signed sha384WithRSA as Azure's are
 *
 * As with Azure, a document carries only the leaf: the intermediate comes from AIA (aiaFiles,
 * served under aiaBaseUrl) or from a bundle, and the path to `root` needs the cross-signed copy.
 * One PKI per process and options (RSA key generation is the slow part of a test).
 */

export type { TestCert } from "./x509";

export interface TestPki {
  root: TestCert;
  tlsRoot: TestCert;
  tlsRootCrossSigned: TestCert;
  intermediate: TestCert;
  leaf: TestCert;
  /** What the PKI was made with: issueLeaf reuses them. */
  options: { aiaBaseUrl: string; region: string };
}

export const TEST_ROOT_NAME = "Quiesce Test Global Root G2";
export const TEST_TLS_ROOT_NAME = "Quiesce Test TLS RSA Root G2";
export const TEST_INTERMEDIATE_NAME = "Quiesce Test TLS G2 RSA CA OCSP 01";
export const TEST_ROGUE_NAME = "Quiesce Test Rogue Root";

const DAY = 86_400_000;
const ORG = "Quiesce Test";

/** Validity around the moment the PKI is made, wide enough for a simulator running fast. */
function around(beforeDays: number, afterDays: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - beforeDays * DAY), notAfter: new Date(now + afterDays * DAY) };
}

/** The AIA URL of a certificate named `cn` (" - xsign" for a cross-signed copy), Microsoft's way. */
export function aiaUrl(aiaBaseUrl: string, cn: string): string {
  return `${aiaBaseUrl.replace(/\/+$/, "")}/pkiops/certs/${encodeURIComponent(`${cn}.crt`)}`;
}

const made = new Map<string, Promise<TestPki>>();

export function createTestPki(opts: { aiaBaseUrl: string; region?: string }): Promise<TestPki> {
  const options = { aiaBaseUrl: opts.aiaBaseUrl, region: opts.region ?? "eastus" };
  const key = JSON.stringify(options);
  let pki = made.get(key);
  if (!pki) {
    pki = makePki(options);
    made.set(key, pki);
    pki.catch(() => made.delete(key));
  }
  return pki;
}

async function makePki(options: TestPki["options"]): Promise<TestPki> {
  const [rootKeys, tlsRootKeys, intermediateKeys, leafKeys] = await Promise.all([
    newKeys(),
    newKeys(),
    newKeys(),
    newKeys(),
  ]);
  const ca = { ca: true } as const;
  const root = issueCertificate({
    subject: [
      ["C", "US"],
      ["O", ORG],
      ["OU", "test"],
      ["CN", TEST_ROOT_NAME],
    ],
    keys: rootKeys,
    ...around(800, 7300),
    ...ca,
  });
  const tlsRootSubject = [
    ["C", "US"],
    ["O", ORG],
    ["CN", TEST_TLS_ROOT_NAME],
  ] as const;
  const tlsRoot = issueCertificate({
    subject: tlsRootSubject,
    keys: tlsRootKeys,
    ...around(700, 5400),
    ...ca,
    hash: "sha384",
  });
  const tlsRootCrossSigned = issueCertificate({
    subject: tlsRootSubject,
    keys: tlsRootKeys,
    issuer: root,
    ...around(700, 3600),
    ...ca,
  });
  const intermediate = issueCertificate({
    subject: [
      ["C", "US"],
      ["O", ORG],
      ["CN", TEST_INTERMEDIATE_NAME],
    ],
    keys: intermediateKeys,
    issuer: tlsRoot,
    ...around(400, 1400),
    ...ca,
    pathLen: 0,
    caIssuers: [aiaUrl(options.aiaBaseUrl, `${TEST_TLS_ROOT_NAME} - xsign`)],
    hash: "sha384",
  });
  const pki = { root, tlsRoot, tlsRootCrossSigned, intermediate, options };
  return { ...pki, leaf: leafOf(pki, { keys: leafKeys }) };
}

/** The DER each AIA URL of the PKI serves, by URL pathname (percent-encoded, as a request has it). */
export function aiaFiles(pki: TestPki): Map<string, Uint8Array> {
  const path = (cn: string) => new URL(aiaUrl(pki.options.aiaBaseUrl, cn)).pathname;
  return new Map([
    [path(TEST_INTERMEDIATE_NAME), pki.intermediate.der],
    [path(`${TEST_TLS_ROOT_NAME} - xsign`), pki.tlsRootCrossSigned.der],
    [path(TEST_TLS_ROOT_NAME), pki.tlsRoot.der],
  ]);
}

export interface LeafOptions {
  /** DNS names of the SAN (default `<region>.metadata.azure.com`, `metadata.azure.com`). */
  san?: string[];
  /** Who signs it: the PKI's intermediate (default), the rogue hierarchy, or any certificate. */
  issuer?: "intermediate" | "rogue" | TestCert;
  notBefore?: Date;
  notAfter?: Date;
  /** A certificate that is not a CA (CA:false) yet has keyCertSign: a hostile "issuer". */
  keyCertSign?: boolean;
  /** Subject CN (default metadata.azure.com). */
  cn?: string;
}

/** Another leaf, for hostile material: another SAN, another issuer, another validity. */
export async function issueLeaf(pki: TestPki, opts: LeafOptions = {}): Promise<TestCert> {
  const keys = await newKeys();
  const issuer =
    opts.issuer === "rogue"
      ? await createRogueCa()
      : opts.issuer === undefined || opts.issuer === "intermediate"
        ? pki.intermediate
        : opts.issuer;
  return leafOf(pki, { ...opts, keys, issuer });
}

function leafOf(
  pki: Pick<TestPki, "intermediate" | "options">,
  opts: Omit<LeafOptions, "issuer"> & { keys: TestCert["keys"]; issuer?: TestCert },
): TestCert {
  const issuer = opts.issuer ?? pki.intermediate;
  const validity = around(30, 365);
  return issueCertificate({
    subject: [
      ["C", "US"],
      ["ST", "WA"],
      ["L", "Redmond"],
      ["O", ORG],
      ["CN", opts.cn ?? "metadata.azure.com"],
    ],
    keys: opts.keys,
    issuer,
    notBefore: opts.notBefore ?? validity.notBefore,
    notAfter: opts.notAfter ?? validity.notAfter,
    ca: false,
    ...(opts.keyCertSign ? { keyCertSign: true } : {}),
    dnsNames: opts.san ?? [`${pki.options.region}.metadata.azure.com`, "metadata.azure.com"],
    // Only the PKI's own intermediate is served under aiaBaseUrl.
    ...(issuer === pki.intermediate
      ? { caIssuers: [aiaUrl(pki.options.aiaBaseUrl, TEST_INTERMEDIATE_NAME)] }
      : {}),
    serverAuth: true,
    hash: "sha384",
  });
}

let rogue: Promise<TestCert> | undefined;

/** A separate self-signed hierarchy no verifier trusts: one root, one per process. */
export function createRogueCa(): Promise<TestCert> {
  rogue ??= newKeys().then((keys) =>
    issueCertificate({
      subject: [
        ["C", "US"],
        ["O", "Rogue"],
        ["CN", TEST_ROGUE_NAME],
      ],
      keys,
      ...around(400, 3600),
      ca: true,
    }),
  );
  return rogue;
}
