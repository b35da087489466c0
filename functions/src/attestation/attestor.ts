import type { AttestationBinding, ProofOutcome } from "@quiesce/core";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { ReadVm } from "./armVm";
import type { NonceSubject, Nonces } from "./nonce";
import { hashBindingToken, newBindingToken } from "./token";
import type { VerifyResult } from "./verify";

/**
 * Checks the proof a report carries, in the order that costs least for what is most often
 * wrong: the nonce (an HMAC), then the document (CMS, signer, SAN, time, chain: verify/), then
 * what it says against what the relay claims, then ARM, once per binding period. Never throws for
 * anything a relay sent; every refusal says which check failed (docs/auth.md, "Refusals").
 */

export interface AttestorDeps {
  nonces: () => Promise<Nonces>;
  verify: (doc: { encoding: string; signature: string }, now: number) => Promise<VerifyResult>;
  readVm: ReadVm;
  /** A binding's ARM read is trusted this long (the re-attestation period). */
  periodMs: number;
}

export interface ProofCheck {
  outcome: ProofOutcome;
  /** The token to hand out if the core makes the binding (its hash is in the outcome). */
  token?: string;
  /** Whether ARM was read (the first proof of a VM, or a binding past its period). */
  armRead: boolean;
}

const refused = (code: string, detail: string): ProofCheck => ({
  outcome: { kind: "refused", code, detail: detail.slice(0, 512) },
  armRead: false,
});

const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export class Attestor {
  constructor(private readonly deps: AttestorDeps) {}

  /** A new challenge for this relay process. */
  async challenge(subject: NonceSubject, now: number): Promise<string> {
    return (await this.deps.nonces()).issue(subject, now);
  }

  async check(
    report: RelayReport,
    subject: NonceSubject,
    binding: AttestationBinding | null,
    now: number,
  ): Promise<ProofCheck | undefined> {
    const proof = report.attestation?.proof;
    if (!proof) return undefined;
    const nonces = await this.deps.nonces();
    // The claimed nonce first: garbage is refused before any cryptography is spent on it.
    const claimed = nonces.check(proof.nonce, subject, now);
    if (!claimed.ok) return refused(claimed.error.code, claimed.error.detail);
    if ("error" in proof)
      return refused("noDocument", `IMDS gave the relay no attested document: ${proof.error}`);

    const verified = await this.deps.verify(proof.document, now);
    if (!verified.ok) {
      const { code, detail } = verified.error;
      return code === "unavailable"
        ? { outcome: { kind: "unavailable", detail }, armRead: false }
        : refused(code, detail);
    }
    const doc = verified.value;
    if (doc.nonce !== proof.nonce)
      return refused(
        "nonceUnknown",
        `the document was signed for nonce "${doc.nonce.slice(0, 40)}", not the challenge's`,
      );
    const issuedAt = claimed.value;
    const claimedSubscription = subscriptionOf(report.vm.resourceId);
    if (!claimedSubscription || !sameId(claimedSubscription, doc.subscriptionId))
      return refused(
        "subscription",
        `the document is for subscription ${doc.subscriptionId}, the relay claims ${report.vm.resourceId}`,
      );
    if (!sameId(doc.vmId, report.vm.vmId))
      return refused(
        "vmId",
        `the document is for vmId ${doc.vmId}, the relay claims vmId ${report.vm.vmId}`,
      );

    const known =
      binding !== null &&
      sameId(binding.vmId, doc.vmId) &&
      sameId(binding.resourceId, report.vm.resourceId) &&
      now - binding.armCheckedAt < this.deps.periodMs;
    let armCheckedAt = binding?.armCheckedAt ?? now;
    if (!known) {
      const vm = await this.deps.readVm(report.vm.resourceId);
      if (!vm.ok)
        return vm.error.kind === "absent"
          ? refused("resource", vm.error.detail)
          : { outcome: { kind: "unavailable", detail: vm.error.detail }, armRead: true };
      if (!sameId(vm.value.vmId, doc.vmId))
        return {
          ...refused(
            "vmId",
            `ARM says ${report.vm.resourceId} has vmId ${vm.value.vmId}; the document is for ${doc.vmId}: another VM's document`,
          ),
          armRead: true,
        };
      if (!sameId(vm.value.name, report.vm.name))
        return {
          ...refused(
            "name",
            `ARM names ${report.vm.resourceId} "${vm.value.name}", the relay reports as "${report.vm.name}"`,
          ),
          armRead: true,
        };
      armCheckedAt = now;
    }
    const token = newBindingToken();
    return {
      outcome: {
        kind: "verified",
        vmId: doc.vmId,
        subscriptionId: doc.subscriptionId,
        resourceId: report.vm.resourceId,
        armCheckedAt,
        nonceIssuedAt: issuedAt,
        nonce: doc.nonce,
        tokenHash: hashBindingToken(token),
      },
      token,
      armRead: !known,
    };
  }
}

function subscriptionOf(resourceId: string): string | undefined {
  const m = /^\/subscriptions\/([^/]+)\//i.exec(resourceId);
  return m?.[1];
}
