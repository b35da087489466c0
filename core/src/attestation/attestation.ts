import type { AttestationInput, ProofOutcome } from "./attestationInput";
import { sameId, unboundWhy, withProblemOf, withUnbound } from "./attestationRecord";

export type { AttestationInput, ProofOutcome } from "./attestationInput";

import type { AttestationBinding, MemberAttestation } from "../model/attestationState";

/**
 * Whether a report comes from the relay bound to its VM (docs/auth.md, "Attestation"), and what
 * that changes: pure, from the member's stored attestation and what the shell found of the
 * report (its token's hash, its proof's verification). Under "require" only a bound report is
 * applied; under "prefer" every report is, and what is not bound is shown and alerted on.
 */

export interface AttestationDecision {
  /** The member's attestation after this report: the very same object when unchanged. */
  attestation: MemberAttestation | undefined;
  standing: "bound" | "unbound" | "off";
  /** Apply the report; false only under require. */
  accept: boolean;
  refusal?: { status: 403 | 503; code: string; message: string };
  /** Ask for a proof: a fresh nonce in the answer. */
  challenge: boolean;
  /** The proof made a binding: hand its token to the relay. */
  issueToken: boolean;
  /** Why the report is not bound, for the relay's log and the answer. */
  detail?: string;
}

/** After a refused proof, a relay under "prefer" is not challenged again for this long. */
export const PROOF_RETRY_MS = 5 * 60_000;

export function decideAttestation(
  prev: MemberAttestation | undefined,
  input: AttestationInput,
): AttestationDecision {
  if (input.mode === "off")
    return {
      attestation: prev,
      standing: "off",
      accept: true,
      challenge: false,
      issueToken: false,
    };
  const proof = input.proof;
  if (proof?.kind === "verified") return verified(prev, proof, input);
  if (proof?.kind === "refused") return refused(prev, proof.code, proof.detail, input);
  if (proof?.kind === "unavailable") {
    // Not the relay's fault: no challenge, its nonce stays good for the retry.
    const detail = `attestation cannot be checked now: ${proof.detail}`;
    return notBound(
      withUnbound(prev, input, detail),
      input,
      detail,
      { status: 503, code: "unavailable" },
      {
        require: false,
        prefer: false,
      },
    );
  }
  const binding = prev?.binding ?? null;
  if (binding && isBound(binding, input)) return bound(prev as MemberAttestation, binding, input);
  return unbound(prev, binding, input);
}

function isBound(b: AttestationBinding, input: AttestationInput): boolean {
  return (
    input.tokenHash !== undefined &&
    b.tokenHash === input.tokenHash &&
    b.bootId === input.bootId &&
    sameId(b.resourceId, input.resourceId)
  );
}

function verified(
  prev: MemberAttestation | undefined,
  proof: Extract<ProofOutcome, { kind: "verified" }>,
  input: AttestationInput,
): AttestationDecision {
  const old = prev?.binding;
  // Nonces carry their issue time to the second: an older one, or the very same, was used.
  if (old && (proof.nonceIssuedAt < old.nonceIssuedAt || proof.nonce === old.nonce))
    return refused(
      prev,
      "replay",
      "the document's nonce was used by the binding already made, or is older than its: a replayed document",
      input,
    );
  const binding: AttestationBinding = {
    vmId: proof.vmId,
    subscriptionId: proof.subscriptionId,
    resourceId: proof.resourceId,
    bootId: input.bootId,
    tokenHash: proof.tokenHash,
    boundAt: input.now,
    armCheckedAt: proof.armCheckedAt,
    nonceIssuedAt: proof.nonceIssuedAt,
    nonce: proof.nonce,
  };
  // A problem of this very process is resolved by its proof; another's stays for operators.
  const problem = prev?.problem && prev.problem.bootId !== input.bootId ? prev.problem : null;
  return {
    attestation: { binding, unbound: null, problem },
    standing: "bound",
    accept: true,
    challenge: false,
    issueToken: true,
  };
}

function refused(
  prev: MemberAttestation | undefined,
  code: string,
  detail: string,
  input: AttestationInput,
): AttestationDecision {
  const message = `attestation refused (${code}): ${detail}`;
  const withProblem = withProblemOf(withUnbound(prev, input, message), {
    code,
    detail,
    at: input.now,
    bootId: input.bootId,
  });
  // Under require a new challenge (the relay may try again); under prefer it waits PROOF_RETRY_MS.
  return notBound(
    withProblem,
    input,
    message,
    { status: 403, code },
    { require: true, prefer: false },
  );
}

function bound(
  prev: MemberAttestation,
  binding: AttestationBinding,
  input: AttestationInput,
): AttestationDecision {
  let attestation = prev;
  const other = prev.unbound;
  if (other) {
    // Another relay process spoke for this VM after it was bound, and the bound one still
    // reports: two relays for one VM (a neighbour sharing the identity), not a restart.
    const contested = other.bootId !== input.bootId && other.since >= binding.boundAt;
    attestation = {
      ...prev,
      unbound: null,
      problem: contested
        ? {
            code: "contested",
            detail: `relay process ${other.bootId} reported for this VM without its binding (${other.why}) while the bound relay ${input.bootId} still reports`,
            at: other.since,
            bootId: other.bootId,
          }
        : prev.problem,
    };
  }
  return {
    attestation,
    standing: "bound",
    accept: true,
    challenge: input.now - binding.boundAt >= input.periodMs,
    issueToken: false,
  };
}

function unbound(
  prev: MemberAttestation | undefined,
  binding: AttestationBinding | null,
  input: AttestationInput,
): AttestationDecision {
  const why = unboundWhy(binding, input);
  const attestation = withUnbound(prev, input, why);
  if (!input.canAttest) {
    const detail = `this relay cannot attest (protocol before 1.2): upgrade it (${why})`;
    return notBound(
      attestation,
      input,
      detail,
      { status: 403, code: "cannotAttest" },
      {
        require: false,
        prefer: false,
      },
    );
  }
  const p = prev?.problem;
  const recentlyRefused =
    p !== null && p !== undefined && p.bootId === input.bootId && input.now - p.at < PROOF_RETRY_MS;
  return notBound(
    attestation,
    input,
    why,
    {
      status: 403,
      code: "unbound",
      message: `the report is not from the relay bound to this VM (${why}): answer the challenge with the IMDS attested document`,
    },
    { require: true, prefer: !recentlyRefused },
  );
}

/**
 * A report not from the relay bound to its VM: refused under require (with `refusal`, its
 * message the detail unless given), taken unbound under prefer; challenged as `challenge` says.
 */
function notBound(
  attestation: MemberAttestation,
  input: AttestationInput,
  detail: string,
  refusal: { status: 403 | 503; code: string; message?: string },
  challenge: { require: boolean; prefer: boolean },
): AttestationDecision {
  const base = { attestation, standing: "unbound" as const, issueToken: false, detail };
  if (input.mode !== "require") return { ...base, accept: true, challenge: challenge.prefer };
  const { status, code, message = detail } = refusal;
  return {
    ...base,
    accept: false,
    refusal: { status, code, message },
    challenge: challenge.require,
  };
}
