import type { AttestationMode } from "@quiesce/protocol/policy";

/** What the shell found of a proof the report carried (functions/src/attestation). */
export type ProofOutcome =
  | {
      kind: "verified";
      vmId: string;
      subscriptionId: string;
      resourceId: string;
      armCheckedAt: number;
      nonceIssuedAt: number;
      nonce: string;
      /** Hash of the new token the shell will hand out if the binding is made. */
      tokenHash: string;
    }
  /** The relay's fault or an attacker's: a 403 under require, a problem under prefer. */
  | { kind: "refused"; code: string; detail: string }
  /** Not the relay's fault (an intermediate or ARM unreachable): a 503 under require. */
  | { kind: "unavailable"; detail: string };

export interface AttestationInput {
  mode: AttestationMode;
  bootId: string;
  resourceId: string;
  /** The relay speaks protocol 1.2 (it sent the attestation field). */
  canAttest: boolean;
  /** SHA-256 (base64url) of the binding token the report carried. */
  tokenHash?: string;
  proof?: ProofOutcome;
  now: number;
  /** A binding this old is re-attested (a challenge in a bound report's answer). */
  periodMs: number;
}
