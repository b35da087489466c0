import { z } from "zod";

/**
 * Protocol 1.2: binding a relay to its VM with the IMDS attested document (docs/auth.md,
 * "Attestation"). The coordinator hands out a nonce (a challenge); the relay fetches
 * `/metadata/attested/document` with it and sends the document with its next report; once the
 * coordinator has verified it, it answers with a binding token, which the relay sends with every
 * later report so that those cost nothing more than today's.
 *
 * Every field here is optional: a 1.1 peer neither sends nor reads them (both upgrade orders).
 */

/** What IMDS accepts as a nonce: "a string of up to 32 random alphanumeric characters" (its spec). */
export const AttestationNonce = z
  .string()
  .regex(/^[A-Za-z0-9]{1,32}$/, "a nonce is 1-32 letters and digits");

/** The binding token: 32 random bytes, base64url. Secret to the relay process it was issued to. */
export const BindingToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, "a binding token is 43 base64url characters");

/** IMDS's answer, as it gives it: `{"encoding":"pkcs7","signature":"<base64 DER SignedData>"}`. */
export const AttestedDocument = z.object({
  encoding: z.string().min(1).max(16),
  /** A real document is about 4 KB of base64 (one certificate); 16 KB bounds it with room. */
  signature: z.string().min(1).max(16_384),
});
export type AttestedDocument = z.infer<typeof AttestedDocument>;

/** The relay's answer to a challenge: the document, or why IMDS could not give one. */
export const AttestationProof = z.union([
  z.object({ nonce: AttestationNonce, document: AttestedDocument }),
  z.object({ nonce: AttestationNonce, error: z.string().min(1).max(512) }),
]);
export type AttestationProof = z.infer<typeof AttestationProof>;

/**
 * In a report. A 1.2 relay always sends the object, even empty: that is how the coordinator
 * knows it can attest (a 1.1 relay cannot, and is told to upgrade instead of challenged).
 */
export const ReportAttestation = z.object({
  token: BindingToken.optional(),
  proof: AttestationProof.optional(),
});
export type ReportAttestation = z.infer<typeof ReportAttestation>;

/** How the coordinator took the report: from the relay bound to the VM, or not. */
export const AttestationStanding = z.enum(["bound", "unbound", "off"]);
export type AttestationStanding = z.infer<typeof AttestationStanding>;

/** In an answer (200) and in a refusal (403/503). Loose: a newer coordinator may add fields. */
export const AnswerAttestation = z.looseObject({
  standing: AttestationStanding,
  /** Fetch the attested document with this nonce and send it with the next report. */
  challenge: z.object({ nonce: AttestationNonce }).optional(),
  /** The proof verified: send this token with every report from now on. */
  token: BindingToken.optional(),
  /** Why the report is not bound (a refused proof, a missing token), for the relay's log. */
  detail: z.string().max(1024).optional(),
});
export type AnswerAttestation = z.infer<typeof AnswerAttestation>;

/** A refusal's body: the coordinator's `{error}` plus, for attestation, the challenge to answer. */
export const RefusalBody = z.looseObject({
  error: z.string(),
  attestation: AnswerAttestation.optional(),
});
export type RefusalBody = z.infer<typeof RefusalBody>;
