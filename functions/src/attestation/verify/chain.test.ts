import type { X509Certificate } from "node:crypto";
import { issueCertificate, newKeys, type TestCert } from "@quiesce/fabric-simulator";
import { beforeAll, describe, expect, it } from "vitest";
import { buildChain, type ChainInputs, MAX_DEPTH } from "./chain";
import { AiaUnavailableError } from "./types";

/**
 * Path building on its own, with hierarchies made for the purpose: several candidates for one
 * name (tried until one leads to a root), loops, the depth bound, and an intermediate source
 * that cannot answer.
 */

const DAY = 86_400_000;
const validity = { notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + DAY) };
let keys: TestCert["keys"];
let other: TestCert["keys"];
beforeAll(async () => {
  [keys, other] = await Promise.all([newKeys(), newKeys()]);
});

const ca = (cn: string, issuer?: TestCert, k = keys) =>
  issueCertificate({
    subject: [["CN", cn]],
    keys: k,
    ...(issuer ? { issuer } : {}),
    ...validity,
    ca: true,
  });
const leafOf = (issuer: TestCert) =>
  issueCertificate({
    subject: [["CN", "metadata.azure.com"]],
    keys,
    issuer,
    ...validity,
    ca: false,
  });

const source = (certs: readonly TestCert[]) => ({
  issuersOf: async (c: X509Certificate) =>
    certs.map((t) => t.cert).filter((t) => t.subject === c.issuer),
});
const inputs = (over: Partial<ChainInputs> & Pick<ChainInputs, "signer">): ChainInputs => ({
  trustRoots: [],
  documentCerts: [],
  intermediates: source([]),
  at: Date.now(),
  ...over,
});
const names = (r: Awaited<ReturnType<typeof buildChain>>) =>
  r.ok ? r.value.map((c) => c.subject.replace("CN=", "")) : r.error;

describe("buildChain", () => {
  it("tries every candidate with the issuer's name: the first leads to an untrusted root, the second to the trusted one", async () => {
    const trusted = ca("Trusted Root");
    const untrusted = ca("Untrusted Root", undefined, other);
    const viaUntrusted = ca("Issuing CA", untrusted);
    const viaTrusted = ca("Issuing CA", trusted);
    const leaf = leafOf(viaTrusted);

    const r = await buildChain(
      inputs({
        signer: leaf.cert,
        trustRoots: [trusted.cert],
        intermediates: source([untrusted, viaUntrusted, viaTrusted]),
      }),
    );

    expect(names(r)).toEqual(["metadata.azure.com", "Issuing CA", "Trusted Root"]);
  });

  it("detects a loop (X issued by Y, Y issued by X) and refuses, naming it", async () => {
    const xSelf = ca("X");
    const y = ca("Y", xSelf);
    const xByY = ca("X", y);
    const leaf = leafOf(y);

    const r = await buildChain(
      inputs({
        signer: leaf.cert,
        trustRoots: [ca("Elsewhere", undefined, other).cert],
        intermediates: source([y, xByY]),
      }),
    );

    expect(r).toMatchObject({
      ok: false,
      error: { code: "chain", detail: expect.stringMatching(/^loop: CN=Y already on the path/) },
    });
  });

  it(`stops at ${MAX_DEPTH} certificates: a root seven CAs up is not reached, five up is`, async () => {
    const cas = [ca("CA 1")];
    for (let i = 2; i <= 7; i++) cas.push(ca(`CA ${i}`, cas[cas.length - 1]));
    const root = cas[0] as TestCert;

    const deep = await buildChain(
      inputs({
        signer: leafOf(cas[6] as TestCert).cert,
        trustRoots: [root.cert],
        intermediates: source(cas),
      }),
    );
    const shallow = await buildChain(
      inputs({
        signer: leafOf(cas[4] as TestCert).cert,
        trustRoots: [root.cert],
        intermediates: source(cas),
      }),
    );

    expect(deep).toMatchObject({
      ok: false,
      error: {
        code: "chain",
        detail: expect.stringContaining(`more than ${MAX_DEPTH} certificates`),
      },
    });
    expect(names(shallow)).toEqual(["metadata.azure.com", "CA 5", "CA 4", "CA 3", "CA 2", "CA 1"]);
  });

  it("an intermediate source that cannot fetch makes it 'unavailable', unless the document carried the issuer", async () => {
    const root = ca("Root");
    const issuing = ca("Issuing CA", root);
    const leaf = leafOf(issuing);
    const failing = {
      issuersOf: async (): Promise<X509Certificate[]> => {
        throw new AiaUnavailableError(
          "http://aia.example/Issuing.crt: HTTP 503 (after 3 attempts)",
        );
      },
    };

    const without = await buildChain(
      inputs({ signer: leaf.cert, trustRoots: [root.cert], intermediates: failing }),
    );
    const carried = await buildChain(
      inputs({
        signer: leaf.cert,
        trustRoots: [root.cert],
        documentCerts: [leaf.cert, issuing.cert],
        intermediates: failing,
      }),
    );

    expect(without).toEqual({
      ok: false,
      error: {
        code: "unavailable",
        detail: "http://aia.example/Issuing.crt: HTTP 503 (after 3 attempts)",
      },
    });
    expect(names(carried)).toEqual(["metadata.azure.com", "Issuing CA", "Root"]);
  });

  it("any other failure of the source is 'unavailable' too, never a throw", async () => {
    const root = ca("Root");
    const leaf = leafOf(ca("Issuing CA", root));
    const broken = {
      issuersOf: async (): Promise<X509Certificate[]> => {
        throw new Error("table storage is down");
      },
    };

    const r = await buildChain(
      inputs({ signer: leaf.cert, trustRoots: [root.cert], intermediates: broken }),
    );

    expect(r).toMatchObject({
      ok: false,
      error: { code: "unavailable", detail: expect.stringContaining("table storage is down") },
    });
  });

  it("a certificate with the issuer's name but another key is not its issuer", async () => {
    const root = ca("Root");
    const leaf = leafOf(ca("Issuing CA", root));
    const impostor = ca("Issuing CA", root, other);

    const r = await buildChain(
      inputs({ signer: leaf.cert, trustRoots: [root.cert], intermediates: source([impostor]) }),
    );

    expect(r).toMatchObject({
      ok: false,
      error: { code: "chain", detail: expect.stringMatching(/^no issuer found for CN=metadata/) },
    });
  });

  it("refuses an intermediate that is not valid at the document's time", async () => {
    const root = ca("Root");
    const expired = issueCertificate({
      subject: [["CN", "Issuing CA"]],
      keys,
      issuer: root,
      notBefore: new Date(Date.now() - 10 * DAY),
      notAfter: new Date(Date.now() - 5 * DAY),
      ca: true,
    });
    const leaf = leafOf(expired);

    const r = await buildChain(
      inputs({ signer: leaf.cert, trustRoots: [root.cert], intermediates: source([expired]) }),
    );

    expect(r).toMatchObject({
      ok: false,
      error: { code: "chain", detail: expect.stringMatching(/^CN=Issuing CA is not valid at /) },
    });
  });
});
