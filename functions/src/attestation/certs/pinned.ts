/**
 * A certificate shipped with the coordinator: Microsoft's and DigiCert's public CA certificates,
 * each with where it was published and its SHA-256 fingerprint (a test checks that the PEM has
 * exactly that fingerprint, so an edit that swaps a certificate cannot go unnoticed). PEM text in
 * TypeScript modules, so the Function app's bundle needs no files beside it.
 */
export interface PinnedCertificate {
  /** The certificate's CN, " - xsign" added for a copy cross-signed by another root. */
  name: string;
  /** SHA-256 fingerprint as node:crypto prints it (X509Certificate.fingerprint256). */
  sha256: string;
  /** Where its publisher serves it. */
  source: string;
  pem: string;
}
