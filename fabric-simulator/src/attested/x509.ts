import {
  createHash,
  generateKeyPair,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/**
 * X.509 certificates for the test PKI, built with pkijs (structure) and signed with node:crypto
 * (RSA PKCS#1 v1.5 over the DER of the TBSCertificate), shaped like Microsoft's: PrintableString
 * names, key identifiers, AIA "CA Issuers" URLs, sha384WithRSA on leaves as Azure's are.
 */

export interface TestCert {
  cert: X509Certificate;
  pem: string;
  der: Uint8Array;
  keys: { privateKey: KeyObject; publicKey: KeyObject };
}

export type Hash = "sha256" | "sha384";

export interface CertSpec {
  /** [attribute OID or short name (C, ST, L, O, OU, CN), value], in order. */
  subject: ReadonlyArray<readonly [string, string]>;
  keys: TestCert["keys"];
  /** The issuing certificate; absent: self-signed with `keys`. */
  issuer?: TestCert;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  pathLen?: number;
  /** Leaves: digitalSignature + keyEncipherment; CAs: digitalSignature + keyCertSign + cRLSign. */
  keyCertSign?: boolean;
  dnsNames?: readonly string[];
  caIssuers?: readonly string[];
  serverAuth?: boolean;
  hash?: Hash;
}

const NAME_OIDS: Record<string, string> = {
  C: "2.5.4.6",
  ST: "2.5.4.8",
  L: "2.5.4.7",
  O: "2.5.4.10",
  OU: "2.5.4.11",
  CN: "2.5.4.3",
};
const SIG_OIDS: Record<Hash, string> = {
  sha256: "1.2.840.113549.1.1.11",
  sha384: "1.2.840.113549.1.1.12",
};

export function newKeys(): Promise<TestCert["keys"]> {
  return new Promise((resolve, reject) =>
    generateKeyPair("rsa", { modulusLength: 2048 }, (err, publicKey, privateKey) =>
      err ? reject(err) : resolve({ publicKey, privateKey }),
    ),
  );
}

export function issueCertificate(spec: CertSpec): TestCert {
  const hash = spec.hash ?? "sha256";
  const spki = spec.keys.publicKey.export({ type: "spki", format: "der" });
  const publicKeyInfo = pkijs.PublicKeyInfo.fromBER(spki);
  const ski = keyId(publicKeyInfo);
  const issuerCert = spec.issuer ? pkijs.Certificate.fromBER(spec.issuer.der) : undefined;

  const cert = new pkijs.Certificate();
  cert.version = 2;
  // A positive 16-byte serial, as CAs use (the top bit clear keeps the INTEGER positive).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] as number) & 0x7f) | 0x10;
  cert.serialNumber = new asn1js.Integer({ valueHex: serial });
  cert.subject = name(spec.subject);
  cert.issuer = issuerCert ? issuerCert.subject : name(spec.subject);
  cert.notBefore.value = spec.notBefore;
  cert.notAfter.value = spec.notAfter;
  cert.subjectPublicKeyInfo = publicKeyInfo;
  const algorithm = new pkijs.AlgorithmIdentifier({
    algorithmId: SIG_OIDS[hash],
    algorithmParams: new asn1js.Null(),
  });
  cert.signature = algorithm;
  cert.signatureAlgorithm = algorithm;
  cert.extensions = extensions(spec, ski, issuerCert ? keyIdOf(issuerCert) : ski);

  const tbs = Buffer.from(cert.encodeTBS().toBER());
  const signingKey = spec.issuer ? spec.issuer.keys.privateKey : spec.keys.privateKey;
  cert.signatureValue = new asn1js.BitString({ valueHex: sign(hash, tbs, signingKey) });
  const der = new Uint8Array(cert.toSchema(true).toBER());
  const x509 = new X509Certificate(Buffer.from(der));
  return { cert: x509, pem: x509.toString(), der, keys: spec.keys };
}

function extensions(spec: CertSpec, ski: Uint8Array, aki: Uint8Array): pkijs.Extension[] {
  const ext = (extnID: string, critical: boolean, value: { toBER(): ArrayBuffer }) =>
    new pkijs.Extension({ extnID, critical, extnValue: value.toBER() });
  const list = [
    ext("2.5.29.19", true, basicConstraints(spec)),
    ext("2.5.29.15", true, keyUsage(spec.ca || spec.keyCertSign === true)),
    ext("2.5.29.14", false, new asn1js.OctetString({ valueHex: ski })),
    ext(
      "2.5.29.35",
      false,
      new pkijs.AuthorityKeyIdentifier({
        keyIdentifier: new asn1js.OctetString({ valueHex: aki }),
      }).toSchema(),
    ),
  ];
  if (spec.dnsNames?.length)
    list.push(
      ext(
        "2.5.29.17",
        false,
        new pkijs.GeneralNames({
          names: spec.dnsNames.map((value) => new pkijs.GeneralName({ type: 2, value })),
        }).toSchema(),
      ),
    );
  if (spec.caIssuers?.length)
    list.push(
      ext(
        "1.3.6.1.5.5.7.1.1",
        false,
        new pkijs.InfoAccess({
          accessDescriptions: spec.caIssuers.map(
            (value) =>
              new pkijs.AccessDescription({
                accessMethod: "1.3.6.1.5.5.7.48.2",
                accessLocation: new pkijs.GeneralName({ type: 6, value }),
              }),
          ),
        }).toSchema(),
      ),
    );
  if (spec.serverAuth)
    list.push(
      ext(
        "2.5.29.37",
        false,
        new pkijs.ExtKeyUsage({ keyPurposes: ["1.3.6.1.5.5.7.3.1"] }).toSchema(),
      ),
    );
  return list;
}

function basicConstraints(spec: CertSpec): asn1js.Sequence {
  if (!spec.ca) return new asn1js.Sequence({ value: [] });
  return new pkijs.BasicConstraints({
    cA: true,
    ...(spec.pathLen === undefined ? {} : { pathLenConstraint: spec.pathLen }),
  }).toSchema() as asn1js.Sequence;
}

/** digitalSignature(0) keyEncipherment(2) for leaves; digitalSignature keyCertSign(5) cRLSign(6) for CAs. */
function keyUsage(signsCertificates: boolean): asn1js.BitString {
  return signsCertificates
    ? new asn1js.BitString({ valueHex: new Uint8Array([0x86]), unusedBits: 1 })
    : new asn1js.BitString({ valueHex: new Uint8Array([0xa0]), unusedBits: 5 });
}

/**
 * A Name with one attribute per RDN (a SET each), as CAs write them. Built as DER and read back:
 * pkijs would otherwise encode every attribute into a single multi-valued RDN.
 */
function name(attrs: ReadonlyArray<readonly [string, string]>): pkijs.RelativeDistinguishedNames {
  const rdns = attrs.map(
    ([type, value]) =>
      new asn1js.Set({
        value: [
          new pkijs.AttributeTypeAndValue({
            type: NAME_OIDS[type] ?? type,
            value: new asn1js.PrintableString({ value }),
          }).toSchema(),
        ],
      }),
  );
  return pkijs.RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: rdns }).toBER());
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's value. */
function keyId(spki: pkijs.PublicKeyInfo): Uint8Array {
  return new Uint8Array(
    createHash("sha1").update(spki.subjectPublicKey.valueBlock.valueHexView).digest(),
  );
}

function keyIdOf(cert: pkijs.Certificate): Uint8Array {
  const ext = cert.extensions?.find((e) => e.extnID === "2.5.29.14");
  const value = ext?.parsedValue as asn1js.OctetString | undefined;
  return value ? new Uint8Array(value.valueBlock.valueHexView) : keyId(cert.subjectPublicKeyInfo);
}
