import { createHash, randomBytes } from "node:crypto";

/**
 * The binding token a verified relay process is given (protocol/relay/attestation.ts): 32
 * random bytes. Only its SHA-256 is stored, so a reader of the table cannot speak for a VM.
 */
export const newBindingToken = (): string => randomBytes(32).toString("base64url");

export const hashBindingToken = (token: string): string =>
  createHash("sha256").update(token).digest("base64url");
