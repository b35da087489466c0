import { z } from "zod";

/**
 * What the coordinator knows of a member's attestation (docs/auth.md, "Attestation"), kept on
 * its member row: the one row every report already reads, so a bound report costs nothing more.
 * Absent in rows written before attestation, and for members never challenged.
 */
const EpochMs = z.number();

/** A relay process proved, with the IMDS attested document, that it runs on this VM. */
export const AttestationBinding = z.object({
  /** The attested vmId, which ARM confirmed is the VM at `resourceId`. */
  vmId: z.string(),
  subscriptionId: z.string(),
  resourceId: z.string(),
  /** The relay process bound; a restart (new bootId) attests again. */
  bootId: z.string(),
  /** SHA-256 (base64url) of the binding token handed to that process; the token is never stored. */
  tokenHash: z.string(),
  boundAt: EpochMs,
  /** When ARM last confirmed vmId ↔ resourceId (a re-attestation within the period skips the read). */
  armCheckedAt: EpochMs,
  /** When the nonce of the accepted proof was issued: an older one is a replay. */
  nonceIssuedAt: EpochMs,
  /** The accepted proof's nonce: the same one again is a replay. */
  nonce: z.string(),
});
export type AttestationBinding = z.infer<typeof AttestationBinding>;

/** Reports for this VM without its binding, from one relay process, since a time. */
export const UnboundReports = z.object({
  bootId: z.string(),
  since: EpochMs,
  /** Why they are not bound: no binding yet, another process, a token that does not match... */
  why: z.string(),
  /** The relay speaks protocol 1.2 (it can answer a challenge). */
  canAttest: z.boolean(),
});
export type UnboundReports = z.infer<typeof UnboundReports>;

/** Something an operator should look at: a refused proof, or two relays speaking for one VM. */
export const AttestationProblem = z.object({
  code: z.string(),
  detail: z.string(),
  at: EpochMs,
  bootId: z.string(),
});
export type AttestationProblem = z.infer<typeof AttestationProblem>;

export const MemberAttestation = z.object({
  binding: AttestationBinding.nullable(),
  unbound: UnboundReports.nullable(),
  problem: AttestationProblem.nullable(),
});
export type MemberAttestation = z.infer<typeof MemberAttestation>;
