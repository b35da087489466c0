import { redact, redactDeep } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { ArmClient } from "../arm";
import type { CoordinatorSettings } from "../config";
import type { HttpDispatcher } from "../net/undici";
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
 * The mode a cluster's reports are checked in: its policy's, else QUIESCE_ATTESTATION; "off"
 * without the control plane, which the vmId → VM mapping needs (config.ts refuses "require"
 * there, so only "prefer" is turned off, and the status API says why).
 */
export function attestationMode(settings: CoordinatorSettings, policy: Policy) {
  if (!settings.QUIESCE_CONTROL_PLANE) return "off" as const;
  return policy.attestation ?? settings.QUIESCE_ATTESTATION;
}

const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== "");

/**
 * The attestor, from the settings: the trust store and intermediates (configuration, not code:
 * docs/auth.md says how to change them when Azure rotates its CAs again), the AIA allow-list and
 * its Table Storage cache, the SAN domains of the cloud, and ARM for the vmId → VM read.
 */
export function createAttestor(
  settings: CoordinatorSettings,
  io: { arm: ArmClient; table: CountedTable; dispatcher: HttpDispatcher },
): Attestor {
  const trustRoots = settings.QUIESCE_ATTESTATION_TRUST_ROOTS
    ? parsePemBundle(settings.QUIESCE_ATTESTATION_TRUST_ROOTS)
    : certificatesOf(DEFAULT_TRUST_ROOTS);
  const configured = settings.QUIESCE_ATTESTATION_INTERMEDIATES;
  const bundled =
    configured === undefined
      ? certificatesOf(BUNDLED_INTERMEDIATES)
      : configured.trim().toLowerCase() === "none"
        ? []
        : parsePemBundle(configured);
  const intermediates = createAiaSource({
    allowedHosts: list(settings.QUIESCE_ATTESTATION_AIA_HOSTS),
    timeoutMs: 5_000,
    maxBytes: 32_768,
    attempts: 3,
    bundled,
    cache: tableAiaCache(io.table),
    dispatcher: io.dispatcher,
    // Fetches are news once per URL and instance; failures are what an operator looks for.
    log: (msg: string, fields: object) =>
      (/fail/.test(msg) ? console.warn : console.info)(redact(msg), redactDeep(fields)),
  });
  const sanDomains = settings.QUIESCE_ATTESTATION_SAN_DOMAINS
    ? list(settings.QUIESCE_ATTESTATION_SAN_DOMAINS)
    : sanDomainsForArmEndpoint(settings.QUIESCE_ARM_ENDPOINT);
  const maxAgeMs = settings.QUIESCE_ATTESTATION_MAX_AGE_SECONDS * 1000;
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
    periodMs: settings.QUIESCE_ATTESTATION_PERIOD_HOURS * 3_600_000,
  });
}
