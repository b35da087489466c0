/**
 * Azure IMDS attested documents: verification (./verify), where intermediates come from (AIA,
 * bundled, cached) and what is trusted by default (./trust).
 */
export {
  type AiaCache,
  type AiaSourceOptions,
  caIssuerUrls,
  createAiaSource,
  memoryAiaCache,
} from "./aia";
export type { FetchDer } from "./aiaFetch";
export {
  BUNDLED_INTERMEDIATES,
  certificatesOf,
  DEFAULT_AIA_HOSTS,
  DEFAULT_TRUST_ROOTS,
  type PinnedCertificate,
  parsePemBundle,
} from "./trust";
export * from "./verify";
