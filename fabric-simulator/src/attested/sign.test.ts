import { createHash, verify } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestPki, issueLeaf, type TestPki } from "./pki";
import {
  attestedContent,
  imdsTimestamp,
  signAttestedDocument,
  tamperAttestedDocument,
} from "./sign";

/**
 * Documents in exactly the shape Azure's IMDS signs (as read from a real one): the parts a
 * verifier cares about, field by field, and the signature checked with node:crypto alone.
 */

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki({ aiaBaseUrl: "http://aia.test" });
});

const CONTENT = attestedContent({
  vmId: "b1310a36-d400-46f6-82cb-6217df846586",
  subscriptionId: "8a205152-b25a-417f-a676-80465535a6c9",
  nonce: "20260728-192400",
  createdOn: new Date("2026-07-28T13:24:00Z"),
});

function parse(signature: string) {
  const der = Buffer.from(signature, "base64");
  const info = pkijs.ContentInfo.fromBER(der);
  return { der, info, signed: new pkijs.SignedData({ schema: info.content }) };
}

describe("attestedContent", () => {
  it("writes Azure's fields in Azure's order, its empty strings, and its timestamp format", () => {
    expect(CONTENT).toBe(
      '{"licenseType":"","nonce":"20260728-192400","plan":{"name":"","product":"","publisher":""},"sku":"","subscriptionId":"8a205152-b25a-417f-a676-80465535a6c9","timeStamp":{"createdOn":"07/28/26 13:24:00 -0000","expiresOn":"07/28/26 19:24:00 -0000"},"vmId":"b1310a36-d400-46f6-82cb-6217df846586"}',
    );
  });

  it("formats timestamps in UTC with two-digit years, and takes a lifetime and a sku", () => {
    expect(imdsTimestamp(new Date("2027-01-05T03:04:05.678Z"))).toBe("01/05/27 03:04:05 -0000");
    const c = JSON.parse(
      attestedContent({
        vmId: "v",
        subscriptionId: "s",
        nonce: "n",
        createdOn: new Date("2026-12-31T23:59:59Z"),
        lifetimeMs: 5000,
        sku: "22_04-lts",
      }),
    );
    expect(c.timeStamp).toEqual({
      createdOn: "12/31/26 23:59:59 -0000",
      expiresOn: "01/01/27 00:00:04 -0000",
    });
    expect(c.sku).toBe("22_04-lts");
  });
});

describe("signAttestedDocument", () => {
  it("has Azure's CMS shape: SignedData v1, digest sha256WithRSAEncryption + NULL, data in a primitive OCTET STRING, only the leaf, one SignerInfo v1 by issuer and serial, rsaEncryption, no attributes", () => {
    const { info, signed } = parse(signAttestedDocument(CONTENT, pki.leaf));

    expect(info.contentType).toBe("1.2.840.113549.1.7.2");
    expect(signed.version).toBe(1);
    expect(signed.digestAlgorithms.map((a) => a.algorithmId)).toEqual(["1.2.840.113549.1.1.11"]);
    expect(signed.digestAlgorithms[0]?.algorithmParams).toBeInstanceOf(asn1js.Null);
    expect(signed.encapContentInfo.eContentType).toBe("1.2.840.113549.1.7.1");
    const eContent = signed.encapContentInfo.eContent as asn1js.OctetString;
    expect(eContent.idBlock.isConstructed).toBe(false);
    expect(Buffer.from(eContent.valueBlock.valueHexView).toString()).toBe(CONTENT);
    expect(signed.certificates).toHaveLength(1);
    const bagCert = signed.certificates?.[0] as pkijs.Certificate;
    expect(Buffer.from(bagCert.toSchema().toBER())).toEqual(Buffer.from(pki.leaf.der));
    expect(signed.crls).toBeUndefined();

    expect(signed.signerInfos).toHaveLength(1);
    const si = signed.signerInfos[0] as pkijs.SignerInfo;
    expect(si.version).toBe(1);
    expect(si.sid).toBeInstanceOf(pkijs.IssuerAndSerialNumber);
    const sid = si.sid as pkijs.IssuerAndSerialNumber;
    expect(sid.issuer.isEqual(bagCert.issuer)).toBe(true);
    expect(sid.serialNumber.isEqual(bagCert.serialNumber)).toBe(true);
    expect(si.digestAlgorithm.algorithmId).toBe("1.2.840.113549.1.1.11");
    expect(si.signatureAlgorithm.algorithmId).toBe("1.2.840.113549.1.1.1");
    expect(si.signedAttrs).toBeUndefined();
    expect(si.unsignedAttrs).toBeUndefined();
    const signature = Buffer.from(si.signature.valueBlock.valueHexView);
    expect(signature).toHaveLength(256);
    expect(verify("sha256", Buffer.from(CONTENT), pki.leaf.cert.publicKey, signature)).toBe(true);
  });

  it("with signedAttrs, signs contentType and messageDigest (as a SET) instead of the content", () => {
    const { signed } = parse(signAttestedDocument(CONTENT, pki.leaf, { signedAttrs: true }));
    const si = signed.signerInfos[0] as pkijs.SignerInfo;
    const attrs = si.signedAttrs as pkijs.SignedAndUnsignedAttributes;

    expect(attrs.attributes.map((a) => a.type)).toEqual([
      "1.2.840.113549.1.9.3",
      "1.2.840.113549.1.9.4",
    ]);
    const digest = attrs.attributes[1]?.values[0] as asn1js.OctetString;
    expect(Buffer.from(digest.valueBlock.valueHexView)).toEqual(
      createHash("sha256").update(CONTENT).digest(),
    );
    const set = Buffer.from(attrs.encodedValue);
    expect(set[0]).toBe(0x31);
    const signature = Buffer.from(si.signature.valueBlock.valueHexView);
    expect(verify("sha256", set, pki.leaf.cert.publicKey, signature)).toBe(true);
  });

  it("takes the bag, more signers and the digest OID from its options", async () => {
    const second = await issueLeaf(pki);
    const { signed } = parse(
      signAttestedDocument({ hello: "world" }, pki.leaf, {
        certificates: [second.cert, pki.leaf.cert, pki.intermediate.cert],
        extraSigners: [second],
        digestOid: "2.16.840.1.101.3.4.2.3",
      }),
    );

    expect(signed.certificates).toHaveLength(3);
    expect(signed.signerInfos.map((s) => s.digestAlgorithm.algorithmId)).toEqual([
      "2.16.840.1.101.3.4.2.3",
      "2.16.840.1.101.3.4.2.3",
    ]);
    const content = (signed.encapContentInfo.eContent as asn1js.OctetString).valueBlock;
    expect(Buffer.from(content.valueHexView).toString()).toBe('{"hello":"world"}');
  });

  it("tamperAttestedDocument changes one byte of the content and nothing else", () => {
    const genuine = Buffer.from(signAttestedDocument(CONTENT, pki.leaf), "base64");
    const tampered = Buffer.from(tamperAttestedDocument(genuine.toString("base64")), "base64");

    expect(tampered).toHaveLength(genuine.length);
    const changed = [...genuine.keys()].filter((i) => genuine[i] !== tampered[i]);
    expect(changed).toHaveLength(1);
    const content = parse(tampered.toString("base64")).signed.encapContentInfo.eContent;
    expect(Buffer.from((content as asn1js.OctetString).valueBlock.valueHexView).toString()).toMatch(
      /"vmId":"11310a36-d400/,
    );
  });
});
