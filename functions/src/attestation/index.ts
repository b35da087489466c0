import type { Logger } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { ArmClient } from "../arm";
import type { HttpDispatcher } from "../net/undici";
import type { AttestationDefaults, AttestorOptions } from "../options";
import type { CountedTable } from "../store";
import { createAiaSource } from "./aia";
import { armVmReader } from "./armVm";
import { Attestor } from "./attestor";
import { nonceKey, tableAiaCache } from "./keyStore";
import { createNonces, type Nonces } from "./nonce";
import {
  BUNDLED_INTERMEDIATES,
  certificatesOf,
  DEFAULT_TRUST_ROOTS,
  parsePemBundle,
} from "./trust";
import { verifyAttestedDocument } from "./verify";
import { sanDomainsForArmEndpoint } from "./verify/san";

/**
 * Azure IMDS attested documents (docs/auth.md, "Attestation"): verification (./verify), where
 * intermediates come from (AIA, bundled, cached: ./aia, ./keyStore) and what is trusted by
 * default (./trust); the attestor that checks a report's proof (./attestor) and is built here.
 */
export {
  type AiaCache,
  type AiaSourceOptions,
  caIssuerUrls,
  createAiaSource,
  memoryAiaCache,
} from "./aia";
export type { FetchDer } from "./aiaFetch";
export { Attestor, type ProofCheck } from "./attestor";
export { hashBindingToken } from "./token";
export {
  BUNDLED_INTERMEDIATES,
  certificatesOf,
  DEFAULT_AIA_HOSTS,
  DEFAULT_TRUST_ROOTS,
  type PinnedCertificate,
  parsePemBundle,
} from "./trust";
export * from "./verify";

/** Doc clocks and ours differ a little; a document "created" this far ahead is refused as future. */
const FUTURE_SKEW_MS = 5 * 60_000;

/**
 * The mode a cluster's reports are checked in: its policy's, else the app's default, which is
 * "off" without the control plane (the vmId → VM mapping needs it; config.ts refuses "require"
 * there, so only "prefer" is turned off, and the status API says why).
 */
export function attestationMode(options: { attestation: AttestationDefaults }, policy: Policy) {
  const defaults = options.attestation;
  if (!defaults.available) return "off" as const;
  return policy.attestation ?? defaults.defaultMode;
}

/**
 * The attestor, from its options: the trust store and intermediates (configuration, not code:
 * docs/auth.md says how to change them when Azure rotates its CAs again), the AIA allow-list and
 * its Table Storage cache, the SAN domains of the cloud, and ARM for the vmId → VM read.
 */
export function createAttestor(
  options: AttestorOptions,
  periodMs: number,
  io: { arm: ArmClient; table: CountedTable; dispatcher: HttpDispatcher; log: Logger },
): Attestor {
  const trustRoots = options.trustRootsPem
    ? parsePemBundle(options.trustRootsPem)
    : certificatesOf(DEFAULT_TRUST_ROOTS);
  const configured = options.intermediates;
  const bundled =
    configured === "bundled"
      ? certificatesOf(BUNDLED_INTERMEDIATES)
      : configured === "none"
        ? []
        : parsePemBundle(configured.pem);
  const intermediates = createAiaSource({
    allowedHosts: options.aiaHosts,
    timeoutMs: 5_000,
    maxBytes: 32_768,
    attempts: 3,
    bundled,
    cache: tableAiaCache(io.table),
    dispatcher: io.dispatcher,
    log: io.log,
  });
  const sanDomains = options.sanDomains ?? sanDomainsForArmEndpoint(options.armEndpoint);
  const maxAgeMs = options.maxAgeMs;
  let nonces: Promise<Nonces> | undefined;
  return new Attestor({
    nonces: () => {
      // Read (or made) once per instance; a failed read is tried again on the next proof.
      nonces ??= nonceKey(io.table).then(createNonces, (e: unknown) => {
        nonces = undefined;
        throw e;
      });
      return nonces;
    },
    verify: (doc, now) =>
      verifyAttestedDocument(doc, {
        trustRoots,
        intermediates,
        sanDomains,
        now,
        maxAgeMs,
        futureSkewMs: FUTURE_SKEW_MS,
      }),
    readVm: armVmReader(io.arm),
    periodMs,
  });
}
