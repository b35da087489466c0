import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildChain } from "../../functions/src/attestation/verify/chain";

/**
 * The x509-limbo testcases that apply to the attested document's signer (see
 * fixtures/x509-limbo/SOURCES.md for which, and why the others do not), each run through the
 * path building and validation the verifier uses: the case's trusted certificates as the trust
 * roots, its untrusted intermediates as the document's certificate bag, no AIA, at its
 * validation time. The expected result is limbo's, but for the cases listed in STRICTER.
 */

const Case = z.object({
  id: z.string(),
  validation_kind: z.enum(["SERVER", "CLIENT"]),
  trusted_certs: z.array(z.string()),
  untrusted_intermediates: z.array(z.string()),
  peer_certificate: z.string(),
  validation_time: z.string().nullable(),
  extended_key_usage: z.array(z.string()).nullable(),
  expected_result: z.enum(["SUCCESS", "FAILURE"]),
});
const Limbo = z.object({ version: z.literal(1), testcases: z.array(Case) });

const cases = Limbo.parse(
  JSON.parse(readFileSync(join(__dirname, "fixtures/x509-limbo/limbo-rfc5280.json"), "utf8")),
).testcases;

/** Where the verifier is deliberately stricter than RFC 5280: the signer must be an end entity. */
const STRICTER: Record<string, string> = {
  "rfc5280::ca-as-leaf": "the signer is a CA certificate",
  "pathlen::validation-ignores-pathlen-in-leaf": "the signer is a CA certificate",
};

const PURPOSES: Record<string, string> = {
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/** SUCCESS, or FAILURE with the refusal; a certificate Node cannot read is refused as malformed. */
async function outcome(c: z.infer<typeof Case>): Promise<{ result: string; detail: string }> {
  let certs: { roots: X509Certificate[]; bag: X509Certificate[]; signer: X509Certificate };
  try {
    certs = {
      roots: c.trusted_certs.map((p) => new X509Certificate(p)),
      bag: c.untrusted_intermediates.map((p) => new X509Certificate(p)),
      signer: new X509Certificate(c.peer_certificate),
    };
  } catch (e) {
    return { result: "FAILURE", detail: `not a certificate: ${(e as Error).message}` };
  }
  const purpose =
    PURPOSES[
      c.extended_key_usage?.[0] ?? (c.validation_kind === "SERVER" ? "serverAuth" : "clientAuth")
    ];
  const r = await buildChain({
    signer: certs.signer,
    trustRoots: certs.roots,
    documentCerts: [certs.signer, ...certs.bag],
    intermediates: { issuersOf: async () => [] },
    at: c.validation_time ? Date.parse(c.validation_time) : Date.now(),
    ...(purpose ? { purpose } : {}),
  });
  return r.ok
    ? { result: "SUCCESS", detail: "" }
    : {
        result: r.error.code === "chain" ? "FAILURE" : `ERROR ${r.error.code}`,
        detail: r.error.detail,
      };
}

describe("x509-limbo (RFC 5280 path validation) through the attested document's chain check", () => {
  it("vendors the selected cases", () => {
    expect(cases.length).toBeGreaterThan(100);
    for (const id of Object.keys(STRICTER)) expect(cases.map((c) => c.id)).toContain(id);
  });

  it.each(cases.map((c) => [c.id, c] as const))("%s", async (_id, c) => {
    const expected = STRICTER[c.id] ? "FAILURE" : c.expected_result;
    const got = await outcome(c);
    expect({ id: c.id, result: got.result }, got.detail).toEqual({ id: c.id, result: expected });
    if (STRICTER[c.id]) expect(got.detail).toMatch(/is a CA, not an end entity/);
  });
});
