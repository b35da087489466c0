import { createHmac, timingSafeEqual } from "node:crypto";
import type { Result } from "@quiesce/protocol";

/**
 * Challenge nonces that need no storage: 7 base-36 characters of the issue time (seconds), then
 * 25 hex characters of an HMAC-SHA256 over the time and whom the nonce was issued to (cluster,
 * member, relay process). 32 letters and digits in all, the most IMDS's spec allows.
 *
 * So the coordinator knows a nonce it issued from one it did not, and for whom, without a write
 * per challenge: a neighbour's nonce does not fit this VM's relay, and an old one is refused by
 * its age. Single use comes from the binding (attestation.ts): a proof's nonce must be newer than
 * the one of the binding already made. The key is shared by every instance (keyStore.ts).
 */

export const NONCE_LIFETIME_MS = 10 * 60_000;
/** A nonce "issued" further ahead than this is not ours (instances' clocks differ a little). */
const FUTURE_SKEW_MS = 60_000;
const TIME_CHARS = 7;
const MAC_CHARS = 25;

export interface NonceSubject {
  cluster: string;
  member: string;
  bootId: string;
}

export interface NonceRefusal {
  code: "nonceUnknown" | "replay";
  detail: string;
}

export interface Nonces {
  issue(subject: NonceSubject, now: number): string;
  /** When it was issued, if this coordinator issued it to `subject` and it is still fresh. */
  check(nonce: string, subject: NonceSubject, now: number): Result<number, NonceRefusal>;
}

export function createNonces(key: Uint8Array): Nonces {
  const mac = (subject: NonceSubject, seconds: string) =>
    createHmac("sha256", key)
      .update(`${subject.cluster}\n${subject.member}\n${subject.bootId}\n${seconds}`)
      .digest("hex")
      .slice(0, MAC_CHARS);
  return {
    issue(subject, now) {
      const seconds = Math.floor(now / 1000)
        .toString(36)
        .padStart(TIME_CHARS, "0");
      return `${seconds}${mac(subject, seconds)}`;
    },
    check(nonce, subject, now) {
      const unknown = (detail: string) => ({
        ok: false as const,
        error: { code: "nonceUnknown" as const, detail },
      });
      if (!/^[0-9a-z]{32}$/.test(nonce))
        return unknown(
          `the document's nonce "${nonce.slice(0, 40)}" is not one this coordinator issues`,
        );
      const seconds = nonce.slice(0, TIME_CHARS);
      const expected = Buffer.from(mac(subject, seconds));
      const given = Buffer.from(nonce.slice(TIME_CHARS));
      if (!timingSafeEqual(expected, given))
        return unknown(
          "the document's nonce was not issued to this VM's relay process (another VM's, another process's, or made up)",
        );
      const issuedAt = Number.parseInt(seconds, 36) * 1000;
      if (issuedAt > now + FUTURE_SKEW_MS)
        return unknown("the document's nonce is from the future");
      if (now - issuedAt > NONCE_LIFETIME_MS)
        return {
          ok: false,
          error: {
            code: "replay",
            detail: `the document's nonce was issued ${Math.round((now - issuedAt) / 1000)} s ago, more than ${NONCE_LIFETIME_MS / 1000} s: an old document`,
          },
        };
      return { ok: true, value: issuedAt };
    },
  };
}
