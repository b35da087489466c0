export {
  aiaFiles,
  aiaUrl,
  createRogueCa,
  createTestPki,
  issueLeaf,
  type LeafOptions,
  TEST_INTERMEDIATE_NAME,
  TEST_ROGUE_NAME,
  TEST_ROOT_NAME,
  TEST_TLS_ROOT_NAME,
  type TestCert,
  type TestPki,
} from "./pki";
export {
  attestedContent,
  type DocumentSigner,
  imdsTimestamp,
  OID_SHA256_WITH_RSA,
  type SignOptions,
  signAttestedDocument,
  tamperAttestedDocument,
} from "./sign";
export { type CertSpec, issueCertificate, newKeys } from "./x509";
