import {
  attestedContent,
  createRogueCa,
  issueCertificate,
  issueLeaf,
  newKeys,
  signAttestedDocument,
  type TestCert,
  tamperAttestedDocument,
} from "@quiesce/fabric-simulator";
import type { VmIdentity } from "@quiesce/protocol/imds";
import { useAzurite } from "@quiesce/testkit/azurite";
import { postReport, type TestCoordinator } from "@quiesce/testkit/harness";
import { beforeAll, describe, expect, it } from "vitest";
import {
  A,
  attestingCoordinator,
  bind,
  documentOf,
  identityOf,
  report,
  useAttestationFabric,
} from "./setup";

const azurite = useAzurite();
const fabric = useAttestationFabric();

let c: TestCoordinator;
let a: VmIdentity;
beforeAll(async () => {
  c = await attestingCoordinator(azurite().connectionString, fabric.sim, "require");
  a = await identityOf(fabric.sim, A);
});

/** A challenge for A from a fresh relay process, and that process's proof with `signature`. */
async function answer(bootId: string, make: (nonce: string) => Promise<string> | string) {
  const first = await postReport(c, report(a, bootId));
  const nonce = first.body.attestation.challenge.nonce as string;
  const signature = await make(nonce);
  return postReport(
    c,
    report(a, bootId, { proof: { nonce, document: { encoding: "pkcs7", signature } } }),
  );
}

const content = (nonce: string, o: { subscriptionId?: string; createdOn?: Date } = {}) =>
  attestedContent({
    vmId: a.vmId,
    subscriptionId: o.subscriptionId ?? (a.subscriptionId as string),
    nonce,
    createdOn: o.createdOn ?? new Date(fabric.sim.now().simMs),
  });

/** A certificate for `cn` (SAN metadata.azure.com) issued by `issuer`, a CA or not. */
async function underIntermediate(issuer: TestCert, cn: string, ca: boolean): Promise<TestCert> {
  const now = fabric.sim.now().simMs;
  return issueCertificate({
    subject: [["CN", cn]],
    keys: await newKeys(),
    issuer,
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 30 * 86_400_000),
    ca,
    dnsNames: ["metadata.azure.com"],
  });
}

/**
 * Issue 19's list of documents that must be refused, each through the real handler under
 * require: a 403 naming the check that failed, never a binding, never a 500.
 */
describe("attestation: hostile documents are refused, each with its reason", () => {
  it("a replayed document: the proof a binding was made with, sent again", async () => {
    await bind(c, fabric.sim, A, "boot-r");
    const first = await postReport(c, report(a, "boot-r2"));
    const nonce = first.body.attestation.challenge.nonce as string;
    const proof = { nonce, document: await documentOf(fabric.sim, A, nonce) };
    expect((await postReport(c, report(a, "boot-r2", { proof }))).status).toBe(200);
    const replayed = await postReport(c, report(a, "boot-r2", { proof }));
    expect(replayed.status).toBe(403);
    expect(replayed.body.error).toMatch(/\(replay\)/);
  });

  it("an old nonce, past its ten minutes", async () => {
    const first = await postReport(c, report(a, "boot-old-nonce"));
    const nonce = first.body.attestation.challenge.nonce as string;
    const document = await documentOf(fabric.sim, A, nonce);
    c.clock.advance(11 * 60_000);
    try {
      const late = await postReport(c, report(a, "boot-old-nonce", { proof: { nonce, document } }));
      expect(late.status).toBe(403);
      expect(late.body.error).toMatch(/\(replay\).*issued \d+ s ago/);
    } finally {
      c.clock.advance(-11 * 60_000);
    }
  });

  it("a nonce issued to another relay process", async () => {
    const first = await postReport(c, report(a, "boot-x"));
    const nonce = first.body.attestation.challenge.nonce as string;
    const document = await documentOf(fabric.sim, A, nonce);
    const other = await postReport(c, report(a, "boot-y", { proof: { nonce, document } }));
    expect(other.status).toBe(403);
    expect(other.body.error).toMatch(/\(nonceUnknown\)/);
  });

  const cases: Array<[string, RegExp, (nonce: string) => Promise<string> | string]> = [
    [
      "another subscription's document",
      /\(subscription\)/,
      async (n) =>
        signAttestedDocument(
          content(n, { subscriptionId: "11111111-2222-4333-8444-555555555555" }),
          (await fabric.sim.attestation.pki()).leaf,
        ),
    ],
    [
      "a tampered document",
      /\(signature\)/,
      async (n) =>
        tamperAttestedDocument(
          signAttestedDocument(content(n), (await fabric.sim.attestation.pki()).leaf),
        ),
    ],
    [
      "an expired document (created 20 minutes ago)",
      /\(expired\)/,
      async (n) =>
        signAttestedDocument(
          content(n, { createdOn: new Date(fabric.sim.now().simMs - 20 * 60_000) }),
          (await fabric.sim.attestation.pki()).leaf,
        ),
    ],
    [
      "a document signed by a certificate for another name (wrong SAN)",
      /\(san\)/,
      async (n) => {
        const pki = await fabric.sim.attestation.pki();
        return signAttestedDocument(
          content(n),
          await issueLeaf(pki, { san: ["metadata.evil.example"] }),
        );
      },
    ],
    [
      "a document signed under another CA (wrong CA), with Azure's names",
      /\(chain\)/,
      async (n) =>
        signAttestedDocument(
          content(n),
          await issueLeaf(await fabric.sim.attestation.pki(), { issuer: "rogue" }),
        ),
    ],
    [
      "a genuine certificate first in the bag, the content signed by a rogue one (signer not first)",
      /\((chain|signer)\)/,
      async (n) => {
        const pki = await fabric.sim.attestation.pki();
        const rogue = await issueLeaf(pki, { issuer: await createRogueCa() });
        return signAttestedDocument(content(n), rogue, {
          certificates: [pki.leaf.cert, rogue.cert],
        });
      },
    ],
    [
      "a metadata.azure.com leaf from a CA below the pathLen:0 intermediate (path length)",
      /\(chain\): .*path length constraint/,
      async (n) => {
        const pki = await fabric.sim.attestation.pki();
        const subCa = await underIntermediate(pki.intermediate, "Rogue Sub CA", true);
        const leaf = await underIntermediate(subCa, "metadata.azure.com", false);
        return signAttestedDocument(content(n), leaf, {
          certificates: [leaf.cert, subCa.cert, pki.intermediate.cert],
        });
      },
    ],
    [
      "a document signed by a CA certificate named metadata.azure.com (signer not an end entity)",
      /\(chain\): signer .*is a CA, not an end entity/,
      async (n) => {
        const pki = await fabric.sim.attestation.pki();
        const caSigner = await underIntermediate(pki.intermediate, "metadata.azure.com", true);
        return signAttestedDocument(content(n), caSigner, {
          certificates: [caSigner.cert, pki.intermediate.cert],
        });
      },
    ],
    [
      "a document with two signers",
      /\(signer\)/,
      async (n) => {
        const pki = await fabric.sim.attestation.pki();
        return signAttestedDocument(content(n), pki.leaf, { extraSigners: [pki.leaf] });
      },
    ],
    ["not a document at all", /\(malformed\)/, () => Buffer.from("hello").toString("base64")],
  ];

  it.each(cases)("%s", async (_name, reason, make) => {
    const res = await answer(`boot-${reason.source.replace(/\W/g, "")}`, make);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(reason);
    // Refused with a new challenge: the relay may try again, with a document of its own.
    expect(res.body.attestation.challenge.nonce).toMatch(/^[a-z0-9]{32}$/);
  });

  it("records a refused proof on the member, for the status API and the alert", async () => {
    await bind(c, fabric.sim, A, "boot-rec");
    await answer("boot-rec-2", async (n) =>
      tamperAttestedDocument(
        signAttestedDocument(content(n), (await fabric.sim.attestation.pki()).leaf),
      ),
    );
    const member = (await c.deps.store.loadCluster("api")).state.members[A];
    expect(member?.attestation?.problem).toMatchObject({ code: "signature", bootId: "boot-rec-2" });
    expect(member?.attestation?.binding?.bootId).toBe("boot-rec");
  });
});
