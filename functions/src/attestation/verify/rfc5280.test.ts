import { createTestPki, type TestPki } from "@quiesce/fabric-simulator";
import { beforeAll, describe, expect, it } from "vitest";
import { type CertView, type Ext, OID, viewOf } from "./certView";
import { loadLibs } from "./cms";
import { GN } from "./names";
import { pathProblem, SERVER_AUTH } from "./rfc5280";

/**
 * The rules of ./rfc5280.ts that x509-limbo (test/contracts/x509-limbo.test.ts) does not reach,
 * each on the simulator's genuine path (signer, issuing CA, TLS root) with one extension of one
 * certificate changed: the genuine path passes, each change is refused naming its rule.
 */

let pki: TestPki;
let path: () => CertView[];
beforeAll(async () => {
  pki = await createTestPki({ aiaBaseUrl: "http://127.0.0.1:1/aia" });
  const libs = await loadLibs();
  path = () => [pki.leaf, pki.intermediate, pki.tlsRoot].map((c) => viewOf(libs, c.cert));
});

const at = () => Date.now();
const bits = (byte: number) => ({ valueBlock: { valueHexView: new Uint8Array([byte]) } });
const withExt = (view: CertView, oid: string, ext: Ext | undefined) => {
  if (ext) view.ext.set(oid, ext);
  else view.ext.delete(oid);
  return view;
};
/** The path with the certificate at `index` changed by `change`, validated. */
const problemWith = (index: number, change: (v: CertView) => void, purpose = SERVER_AUTH) => {
  const p = path();
  change(p[index] as CertView);
  return pathProblem(p, { at: at(), purpose });
};

describe("pathProblem", () => {
  it("accepts the simulator's genuine path", () => {
    expect(pathProblem(path(), { at: at(), purpose: SERVER_AUTH })).toBeUndefined();
  });

  it("refuses an issuing CA without keyUsage at all (keyCertSign must be asserted)", () => {
    expect(problemWith(1, (v) => withExt(v, OID.keyUsage, undefined))).toMatch(
      /issuer .*key usage does not allow keyCertSign/,
    );
  });

  it("refuses a trust root whose keyUsage lacks keyCertSign", () => {
    expect(
      problemWith(2, (v) =>
        withExt(v, OID.keyUsage, { critical: true, value: bits(0x86 & ~0x04) }),
      ),
    ).toMatch(/issuer .*Root.*keyCertSign/);
  });

  it("refuses a signer whose keyUsage allows only keyEncipherment", () => {
    expect(
      problemWith(0, (v) => withExt(v, OID.keyUsage, { critical: true, value: bits(0x20) })),
    ).toMatch(/signer .*does not allow digitalSignature/);
  });

  it("accepts a signer with nonRepudiation alone, and with anyExtendedKeyUsage", () => {
    expect(
      problemWith(0, (v) => withExt(v, OID.keyUsage, { critical: true, value: bits(0x40) })),
    ).toBeUndefined();
    expect(
      problemWith(0, (v) =>
        withExt(v, OID.extKeyUsage, { critical: false, value: { keyPurposes: ["2.5.29.37.0"] } }),
      ),
    ).toBeUndefined();
  });

  it("refuses a signer whose extKeyUsage is for code signing or OCSP, not serverAuth", () => {
    for (const purpose of ["1.3.6.1.5.5.7.3.3", "1.3.6.1.5.5.7.3.9"])
      expect(
        problemWith(0, (v) =>
          withExt(v, OID.extKeyUsage, { critical: false, value: { keyPurposes: [purpose] } }),
        ),
      ).toMatch(/signer .*does not allow 1\.3\.6\.1\.5\.5\.7\.3\.1/);
  });

  it("refuses policy mappings and inhibitAnyPolicy, critical or not: policy processing is not implemented", () => {
    for (const oid of [OID.policyMappings, OID.inhibitAnyPolicy, OID.policyConstraints])
      expect(problemWith(1, (v) => withExt(v, oid, { critical: false, value: {} }))).toMatch(
        new RegExp(`policy extension ${oid.replace(/\./g, "\\.")}`),
      );
  });

  it("refuses a certificatePolicies extension marked critical (not processed), accepts it non-critical", () => {
    expect(problemWith(1, (v) => withExt(v, "2.5.29.32", { critical: true, value: {} }))).toMatch(
      /unrecognised critical extension 2\.5\.29\.32/,
    );
    expect(
      problemWith(1, (v) => withExt(v, "2.5.29.32", { critical: false, value: {} })),
    ).toBeUndefined();
  });

  it("refuses name constraints with a minimum or maximum, and applies the root's to the signer's SAN", () => {
    const nc = (view: CertView, bounded: boolean, dns: string) => {
      view.ext.set(OID.nameConstraints, { critical: true, value: {} });
      view.nameConstraints = { permitted: [{ type: GN.dns, value: dns }], excluded: [], bounded };
    };
    expect(problemWith(2, (v) => nc(v, true, "metadata.azure.com"))).toMatch(/minimum or maximum/);
    expect(problemWith(2, (v) => nc(v, false, "metadata.azure.com"))).toBeUndefined();
    expect(problemWith(2, (v) => nc(v, false, "azure.us"))).toMatch(
      /metadata\.azure\.com is outside the permitted subtrees/,
    );
  });

  it("refuses a root's pathLenConstraint 0 above the issuing CA (the anchor's constraints bind)", () => {
    expect(
      problemWith(2, (v) =>
        withExt(v, OID.basicConstraints, {
          critical: true,
          value: { cA: true, pathLenConstraint: 0 },
        }),
      ),
    ).toMatch(/exceeds the path length constraint/);
  });
});
