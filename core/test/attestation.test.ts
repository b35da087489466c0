import { describe, expect, it } from "vitest";
import {
  type AttestationInput,
  decideAttestation,
  type MemberAttestation,
  PROOF_RETRY_MS,
  type ProofOutcome,
} from "../src";

const RID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-0";
const HOUR = 3_600_000;

const input = (p: Partial<AttestationInput> = {}): AttestationInput => ({
  mode: "prefer",
  bootId: "boot-a",
  resourceId: RID,
  canAttest: true,
  now: 10 * HOUR,
  periodMs: 24 * HOUR,
  ...p,
});

const verifiedProof = (
  p: Partial<Extract<ProofOutcome, { kind: "verified" }>> = {},
): ProofOutcome => ({
  kind: "verified",
  vmId: "vm-id-a",
  subscriptionId: "s",
  resourceId: RID,
  armCheckedAt: 10 * HOUR,
  nonceIssuedAt: 10 * HOUR - 1000,
  nonce: "nonce-1",
  tokenHash: "hash-a",
  ...p,
});

/** A member bound to relay process boot-a with token hash-a, bound at 9 h. */
const boundMember = (): MemberAttestation => {
  const d = decideAttestation(undefined, input({ proof: verifiedProof(), now: 9 * HOUR }));
  if (!d.attestation) throw new Error("no binding");
  return d.attestation;
};

describe("attestation decisions", () => {
  it("binds a relay whose proof verified and hands it a token", () => {
    const d = decideAttestation(undefined, input({ proof: verifiedProof() }));
    expect(d).toMatchObject({
      standing: "bound",
      accept: true,
      issueToken: true,
      challenge: false,
    });
    expect(d.attestation?.binding).toMatchObject({
      vmId: "vm-id-a",
      bootId: "boot-a",
      tokenHash: "hash-a",
    });
  });

  it("takes a report carrying the bound token as bound, at no change to the member", () => {
    const prev = boundMember();
    const d = decideAttestation(prev, input({ tokenHash: "hash-a" }));
    expect(d).toMatchObject({ standing: "bound", accept: true, challenge: false });
    expect(d.attestation).toBe(prev);
  });

  it("re-attests a binding older than the period without refusing the report", () => {
    const prev = boundMember();
    const d = decideAttestation(prev, input({ tokenHash: "hash-a", now: 9 * HOUR + 24 * HOUR }));
    expect(d).toMatchObject({ standing: "bound", accept: true, challenge: true });
  });

  it("under require, refuses a neighbour's report for a bound VM with a 403 and a challenge", () => {
    const prev = boundMember();
    const d = decideAttestation(prev, input({ mode: "require", bootId: "boot-b" }));
    expect(d.accept).toBe(false);
    expect(d.refusal).toMatchObject({ status: 403, code: "unbound" });
    expect(d.challenge).toBe(true);
  });

  it("under require, refuses a wrong token from the bound process", () => {
    const d = decideAttestation(boundMember(), input({ mode: "require", tokenHash: "forged" }));
    expect(d.refusal?.message).toContain("binding token does not match");
  });

  it("under prefer, accepts the neighbour's report but flags the VM as contested once the bound relay reports again", () => {
    const prev = boundMember();
    const foreign = decideAttestation(prev, input({ bootId: "boot-b", now: 10 * HOUR }));
    expect(foreign).toMatchObject({ standing: "unbound", accept: true, challenge: true });
    expect(foreign.attestation?.unbound).toMatchObject({ bootId: "boot-b" });
    const back = decideAttestation(
      foreign.attestation,
      input({ tokenHash: "hash-a", now: 10 * HOUR + 5000 }),
    );
    expect(back.standing).toBe("bound");
    expect(back.attestation?.unbound).toBeNull();
    expect(back.attestation?.problem).toMatchObject({ code: "contested", bootId: "boot-b" });
  });

  it("does not flag a restart: the new process proves itself and the old one is never heard again", () => {
    const restarted = decideAttestation(boundMember(), input({ bootId: "boot-c" }));
    const proved = decideAttestation(
      restarted.attestation,
      input({
        bootId: "boot-c",
        proof: verifiedProof({ tokenHash: "hash-c", nonce: "nonce-2" }),
        now: 10 * HOUR + 1000,
      }),
    );
    expect(proved.attestation?.problem).toBeNull();
    expect(proved.attestation?.binding).toMatchObject({ bootId: "boot-c", tokenHash: "hash-c" });
  });

  it("refuses the binding's own nonce again, or an older one, as a replay", () => {
    const prev = boundMember();
    const d = decideAttestation(
      prev,
      input({
        mode: "require",
        bootId: "boot-b",
        proof: verifiedProof({ nonceIssuedAt: 9 * HOUR - 1000, nonce: "nonce-0" }),
      }),
    );
    expect(d.refusal).toMatchObject({ status: 403, code: "replay" });
    const same = decideAttestation(prev, input({ mode: "require", proof: verifiedProof() }));
    expect(same.refusal).toMatchObject({ status: 403, code: "replay" });
    const sameSecond = decideAttestation(
      prev,
      input({ mode: "require", bootId: "boot-c", proof: verifiedProof({ nonce: "nonce-2" }) }),
    );
    expect(sameSecond.standing).toBe("bound");
  });

  it("records a refused proof once per relay process and code, and stops challenging it for a while under prefer", () => {
    const refused: ProofOutcome = {
      kind: "refused",
      code: "vmId",
      detail: "another VM's document",
    };
    const first = decideAttestation(undefined, input({ proof: refused }));
    expect(first).toMatchObject({ accept: true, standing: "unbound", challenge: false });
    expect(first.attestation?.problem).toMatchObject({ code: "vmId", at: 10 * HOUR });
    const again = decideAttestation(
      first.attestation,
      input({ proof: refused, now: 10 * HOUR + 1 }),
    );
    expect(again.attestation).toBe(first.attestation);
    const plain = decideAttestation(first.attestation, input({ now: 10 * HOUR + 1000 }));
    expect(plain.challenge).toBe(false);
    const later = decideAttestation(first.attestation, input({ now: 10 * HOUR + PROOF_RETRY_MS }));
    expect(later.challenge).toBe(true);
  });

  it("answers 503, not 403, when the proof cannot be checked now, and keeps the challenge open", () => {
    const d = decideAttestation(
      undefined,
      input({ mode: "require", proof: { kind: "unavailable", detail: "AIA timeout" } }),
    );
    expect(d.refusal).toMatchObject({ status: 503, code: "unavailable" });
    expect(d.challenge).toBe(false);
  });

  it("tells a relay that cannot attest to upgrade: refused under require, accepted unbound under prefer", () => {
    expect(
      decideAttestation(undefined, input({ mode: "require", canAttest: false })).refusal,
    ).toMatchObject({
      status: 403,
      code: "cannotAttest",
    });
    const prefer = decideAttestation(undefined, input({ canAttest: false }));
    expect(prefer).toMatchObject({ accept: true, challenge: false, standing: "unbound" });
  });

  it("changes nothing and challenges nobody when off", () => {
    const prev = boundMember();
    const d = decideAttestation(prev, input({ mode: "off", bootId: "boot-z" }));
    expect(d).toMatchObject({ standing: "off", accept: true, challenge: false });
    expect(d.attestation).toBe(prev);
  });

  it("does not take a token for another resource id as bound", () => {
    const other = RID.replace("web-0", "web-1");
    const d = decideAttestation(boundMember(), input({ tokenHash: "hash-a", resourceId: other }));
    expect(d.standing).toBe("unbound");
  });
});
