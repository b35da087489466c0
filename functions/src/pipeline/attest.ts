import {
  type AttestationBinding,
  type AttestationDecision,
  decideAttestation,
  type Member,
} from "@quiesce/core";
import type { AttestationMode } from "@quiesce/protocol/policy";
import type { AnswerAttestation, RelayReport } from "@quiesce/protocol/relay";
import { type Attestor, hashBindingToken, type ProofCheck } from "../attestation";
import type { Telemetry } from "../telemetry/metrics";

/**
 * The report path's attestation step (docs/auth.md, "Attestation"): the proof is checked once
 * per report (cryptography, then ARM when the binding is new or past its period), whatever the
 * attempts of the commit loop; the decision is the core's, on the member row each attempt read.
 */
export interface AttestationStep {
  mode: AttestationMode;
  /** Decides for this attempt, from the member row it loaded. */
  decide(member: Member | undefined, now: number): Promise<Attested>;
  /** The answer's `attestation` field, with a fresh nonce when the decision asks for one. */
  answer(attested: Attested, now: number): Promise<AnswerAttestation | undefined>;
}

export interface Attested {
  decision: AttestationDecision;
  /** The token to hand out when the decision made a binding. */
  token?: string;
}

export function attestationStep(
  report: RelayReport,
  mk: string,
  mode: AttestationMode,
  io: { attestor: Attestor | null; telemetry: Telemetry; periodMs: number },
): AttestationStep {
  const subject = { cluster: report.cluster, member: mk, bootId: report.relay.bootId };
  const token = report.attestation?.token;
  const tokenHash = token ? hashBindingToken(token) : undefined;
  // One check per report, reused by every attempt whose member row has the same binding.
  const checks = new Map<string, Promise<ProofCheck | undefined>>();
  const prove = (binding: AttestationBinding | null, now: number) => {
    const attestor = io.attestor;
    if (!attestor || mode === "off") return Promise.resolve(undefined);
    const key = binding ? `${binding.vmId}|${binding.armCheckedAt}|${binding.nonceIssuedAt}` : "";
    let check = checks.get(key);
    if (!check) {
      check = attestor.check(report, subject, binding, now).then((c) => {
        if (c) {
          const o = c.outcome;
          io.telemetry.attestationProof(
            report.cluster,
            o.kind === "refused" ? o.code : o.kind,
            c.armRead,
          );
        }
        return c;
      });
      checks.set(key, check);
    }
    return check;
  };
  return {
    mode,
    async decide(member, now) {
      const check = await prove(member?.attestation?.binding ?? null, now);
      const decision = decideAttestation(member?.attestation, {
        mode,
        bootId: report.relay.bootId,
        resourceId: report.vm.resourceId,
        canAttest: report.attestation !== undefined,
        ...(tokenHash ? { tokenHash } : {}),
        ...(check ? { proof: check.outcome } : {}),
        now,
        periodMs: io.periodMs,
      });
      return {
        decision,
        ...(decision.issueToken && check?.token ? { token: check.token } : {}),
      };
    },
    async answer({ decision, token }, now) {
      if (mode === "off" || !io.attestor) return undefined;
      io.telemetry.attestation(
        report.cluster,
        decision.accept ? (decision.standing === "bound" ? "bound" : "unbound") : "refused",
      );
      const nonce = decision.challenge ? await io.attestor.challenge(subject, now) : undefined;
      return {
        standing: decision.standing,
        ...(nonce ? { challenge: { nonce } } : {}),
        ...(token ? { token } : {}),
        ...(decision.detail ? { detail: decision.detail.slice(0, 1024) } : {}),
      };
    },
  };
}
