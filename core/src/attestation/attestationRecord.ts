import type {
  AttestationBinding,
  AttestationProblem,
  MemberAttestation,
  UnboundReports,
} from "../model/attestationState";
import type { AttestationInput } from "./attestationInput";

/**
 * How attestation.ts's decisions change a member's attestation record: each returns the very
 * same object when nothing changes, so a report that repeats what is known writes nothing.
 */

/** Resource ids compare as ARM compares them: without regard to case. */
export const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function unboundWhy(b: AttestationBinding | null, input: AttestationInput): string {
  if (!b) return "not attested yet";
  if (!sameId(b.resourceId, input.resourceId))
    return `bound to ${b.resourceId}, reported as ${input.resourceId}`;
  if (b.bootId !== input.bootId) return `bound to relay process ${b.bootId}, not this one`;
  return input.tokenHash === undefined ? "no binding token" : "the binding token does not match";
}

/** Records reports without the binding from this process; kept as it was when already so. */
export function withUnbound(
  prev: MemberAttestation | undefined,
  input: AttestationInput,
  why: string,
): MemberAttestation {
  const base = prev ?? { binding: null, unbound: null, problem: null };
  const u = base.unbound;
  if (u && u.bootId === input.bootId && u.canAttest === input.canAttest) return base;
  const unbound: UnboundReports = {
    bootId: input.bootId,
    since: input.now,
    why: why.slice(0, 512),
    canAttest: input.canAttest,
  };
  return { ...base, unbound };
}

/** Records a problem, unless the same one (code, process) is already recorded: one alert each. */
export function withProblemOf(
  a: MemberAttestation,
  problem: AttestationProblem,
): MemberAttestation {
  const p = a.problem;
  if (p && p.code === problem.code && p.bootId === problem.bootId) return a;
  return { ...a, problem: { ...problem, detail: problem.detail.slice(0, 512) } };
}
