import { issueLeaf } from "@quiesce/fabric-simulator";
import { useAttestedPki } from "@quiesce/testkit/attested";
import { describe, expect, it } from "vitest";
import {
  checkSignerSan,
  inDomain,
  SAN_DOMAINS_BY_ARM_ENDPOINT,
  sanDnsNames,
  sanDomainsForArmEndpoint,
} from "./san";

/** The signer is Azure's metadata service by its SAN, per cloud, with label boundaries. */

describe("inDomain", () => {
  it.each([
    ["metadata.azure.com", "metadata.azure.com", true],
    ["eastus.metadata.azure.com", "metadata.azure.com", true],
    ["a.b.metadata.azure.com", "metadata.azure.com", true],
    ["EastUS.Metadata.Azure.COM", "metadata.azure.com", true],
    ["metadata.azure.com.", "metadata.azure.com", true],
    ["*.metadata.azure.com", "metadata.azure.com", true],
    ["evilmetadata.azure.com", "metadata.azure.com", false],
    ["metadata.azure.com.evil.example", "metadata.azure.com", false],
    ["metadata.evil.com", "metadata.azure.com", false],
    ["azure.com", "metadata.azure.com", false],
    ["metadata.azure.us", "metadata.azure.com", false],
    ["anything", "", false],
  ])("%s in %s: %s", (name, domain, expected) => {
    expect(inDomain(name, domain)).toBe(expected);
  });
});

describe("sanDomainsForArmEndpoint", () => {
  it.each([
    ["https://management.azure.com/", ["metadata.azure.com"]],
    ["management.azure.com", ["metadata.azure.com"]],
    ["https://MANAGEMENT.AZURE.COM", ["metadata.azure.com"]],
    ["https://management.usgovcloudapi.net", ["metadata.azure.us"]],
    ["https://management.chinacloudapi.cn/", ["metadata.azure.cn"]],
    ["https://management.microsoftazure.de", ["metadata.microsoftazure.de"]],
    ["management.azure.com:443", ["metadata.azure.com"]],
  ])("%s → %j", (endpoint, domains) => {
    expect(sanDomainsForArmEndpoint(endpoint)).toEqual(domains);
  });

  it("gives all four clouds' domains for an endpoint it does not know (a loopback stand-in)", () => {
    const all = [
      "metadata.azure.com",
      "metadata.azure.us",
      "metadata.azure.cn",
      "metadata.microsoftazure.de",
    ];
    expect(sanDomainsForArmEndpoint("http://127.0.0.1:7071/arm")).toEqual(all);
    expect(sanDomainsForArmEndpoint("")).toEqual(all);
  });

  it("hands out copies: a caller cannot change the table", () => {
    sanDomainsForArmEndpoint("management.azure.com").push("evil.example");
    expect(SAN_DOMAINS_BY_ARM_ENDPOINT["management.azure.com"]).toEqual(["metadata.azure.com"]);
  });
});

describe("the signer's SAN", () => {
  const fx = useAttestedPki({ region: "westeurope" });

  it("lists the DNS names as the certificate has them", () => {
    expect(sanDnsNames(fx.pki.leaf.cert)).toEqual([
      "westeurope.metadata.azure.com",
      "metadata.azure.com",
    ]);
    expect(checkSignerSan(fx.pki.leaf.cert, ["metadata.azure.com"])).toEqual({
      ok: true,
      value: ["westeurope.metadata.azure.com", "metadata.azure.com"],
    });
  });

  it("keeps a name with ', DNS:' inside as one (quoted) name, which matches nothing", async () => {
    const leaf = await issueLeaf(fx.pki, { san: ["x.example, DNS:metadata.azure.com"] });
    expect(sanDnsNames(leaf.cert)).toEqual(["x.example, DNS:metadata.azure.com"]);
    expect(checkSignerSan(leaf.cert, ["metadata.azure.com"]).ok).toBe(false);
  });

  it("skips a quoted name that is not one JSON string, and reads on (Node never prints one)", () => {
    const subjectAltName = 'DNS:"bad\\x.example", DNS:metadata.azure.com';
    expect(sanDnsNames({ subjectAltName })).toEqual(["metadata.azure.com"]);
  });

  it("refuses a certificate with no SAN DNS name, and a domain list that is empty", () => {
    expect(checkSignerSan(fx.pki.intermediate.cert, ["metadata.azure.com"])).toMatchObject({
      ok: false,
      error: { code: "san", detail: expect.stringContaining("no DNS name") },
    });
    expect(checkSignerSan(fx.pki.leaf.cert, [])).toMatchObject({
      ok: false,
      error: { code: "san", detail: expect.stringContaining("(no domain configured)") },
    });
  });
});
