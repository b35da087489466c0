import { X509Certificate } from "node:crypto";
import { DIGICERT_GLOBAL_ROOT_G2 } from "./certs/digiCertGlobalRootG2";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_03 } from "./certs/microsoftAzureRSATLSIssuingCA03";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_03_XSIGN } from "./certs/microsoftAzureRSATLSIssuingCA03Xsign";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_04 } from "./certs/microsoftAzureRSATLSIssuingCA04";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_04_XSIGN } from "./certs/microsoftAzureRSATLSIssuingCA04Xsign";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_07 } from "./certs/microsoftAzureRSATLSIssuingCA07";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_07_XSIGN } from "./certs/microsoftAzureRSATLSIssuingCA07Xsign";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_08 } from "./certs/microsoftAzureRSATLSIssuingCA08";
import { MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_08_XSIGN } from "./certs/microsoftAzureRSATLSIssuingCA08Xsign";
import { MICROSOFT_RSA_ROOT_CERTIFICATE_AUTHORITY_2017 } from "./certs/microsoftRSARootCertificateAuthority2017";
import { MICROSOFT_TLS_G2_RSA_CA_OCSP_02 } from "./certs/microsoftTLSG2RSACAOCSP02";
import { MICROSOFT_TLS_G2_RSA_CA_OCSP_04 } from "./certs/microsoftTLSG2RSACAOCSP04";
import { MICROSOFT_TLS_RSA_ROOT_G2 } from "./certs/microsoftTLSRSARootG2";
import type { PinnedCertificate } from "./certs/pinned";

export { parsePemBundle } from "./certificates";

/**
 * What the coordinator trusts for attested documents by default, and the intermediates it
 * ships so that the regions it knows need no AIA fetch. Operators replace or extend both with
 * their own PEM (parsePemBundle), since Azure changes its CAs without notice.
 */

export type { PinnedCertificate } from "./certs/pinned";

/**
 * The roots Azure's attested-data chains end at (2024–2026):
 * - DigiCert Global Root G2: the public root of both hierarchies, through cross-signed copies
 *   ("- xsign") of the Azure RSA TLS Issuing CAs and of Microsoft TLS RSA Root G2.
 * - Microsoft RSA Root Certificate Authority 2017: the Azure RSA TLS Issuing CA 0x's own root.
 * - Microsoft TLS RSA Root G2: the new hierarchy's own root (self-signed), which leaves from
 *   "Microsoft TLS G2 RSA CA OCSP NN" reach since 2026; Node's CA store does not hold it.
 */
export const DEFAULT_TRUST_ROOTS: readonly PinnedCertificate[] = [
  DIGICERT_GLOBAL_ROOT_G2,
  MICROSOFT_RSA_ROOT_CERTIFICATE_AUTHORITY_2017,
  MICROSOFT_TLS_RSA_ROOT_G2,
];

/**
 * Microsoft's intermediates for the regions measured in 2026 (taskcluster/taskcluster#8569):
 * the Azure RSA TLS Issuing CAs 03/04/07/08 (and their DigiCert cross-signed copies) and TLS G2
 * RSA CA OCSP 02/04. Other OCSP NN come through AIA. Microsoft TLS RSA Root G2's cross-signed
 * copy is not here: no published copy was at hand to check, and its self-signed form is a root.
 */
export const BUNDLED_INTERMEDIATES: readonly PinnedCertificate[] = [
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_03,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_03_XSIGN,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_04,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_04_XSIGN,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_07,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_07_XSIGN,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_08,
  MICROSOFT_AZURE_RSA_TLS_ISSUING_CA_08_XSIGN,
  MICROSOFT_TLS_G2_RSA_CA_OCSP_02,
  MICROSOFT_TLS_G2_RSA_CA_OCSP_04,
];

/**
 * The hosts Microsoft's AIA URLs name (caIssuers of the leaves and intermediates seen), for
 * createAiaSource's allow-list.
 */
export const DEFAULT_AIA_HOSTS: readonly string[] = [
  "www.microsoft.com",
  "caissuers.microsoft.com",
];

const parsed = new Map<readonly PinnedCertificate[], X509Certificate[]>();

/** The certificates of a pinned list, parsed once per process. */
export function certificatesOf(list: readonly PinnedCertificate[]): X509Certificate[] {
  let certs = parsed.get(list);
  if (!certs) {
    certs = list.map((p) => new X509Certificate(p.pem));
    parsed.set(list, certs);
  }
  return certs;
}
