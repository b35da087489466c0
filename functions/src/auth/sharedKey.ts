import { createHash, timingSafeEqual } from "node:crypto";
import { settingName } from "../options";
import { parseBearer } from "./bearer";
import { requireRole } from "./roles";
import type { Authenticator, Principal, Role } from "./types";

// Comparing fixed-length digests keeps the comparison constant-time whatever the presented length.
const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

const RELAY: Principal = {
  id: "relay-key",
  roles: ["relay"],
  display: "relay-key",
  kind: "sharedKey",
};
const OPERATOR: Principal = {
  id: "operator-key",
  roles: ["operator", "reader"],
  display: "operator-key",
  kind: "sharedKey",
};

const READER: Principal = {
  id: "reader-key",
  roles: ["reader"],
  display: "reader-key",
  kind: "sharedKey",
};

const MISSING: Record<Role, string> = {
  relay: "relay reports need the relay key",
  reader: "the relay key cannot read status; use the operator or reader key",
  operator: "operator actions need the operator key",
};

/**
 * Local mode: generated keys, one for relays, one for the status and operator routes, and
 * optionally a read-only one (the status page shows a reader no operator buttons).
 */
export function createSharedKeyAuthenticator(keys: {
  relayKey: string;
  operatorKey: string;
  readerKey?: string;
}): Authenticator {
  const all = [keys.relayKey, keys.operatorKey, ...(keys.readerKey ? [keys.readerKey] : [])];
  if (new Set(all).size !== all.length)
    throw new Error(
      `${settingName("RELAY_KEY")}, ${settingName("OPERATOR_KEY")} and ${settingName("READER_KEY")} must differ`,
    );
  const relay = digest(keys.relayKey);
  const operator = digest(keys.operatorKey);
  // Without a reader key, compare against a digest nothing hashes to, so the timing stays the same.
  const reader = keys.readerKey ? digest(keys.readerKey) : Buffer.alloc(32, 0xff);
  return {
    async authenticate(authorization, need) {
      const bearer = parseBearer(authorization);
      if (!bearer.ok) return { ok: false, error: { status: 401, reason: bearer.error } };
      const presented = digest(bearer.value);
      // Both comparisons always run, so timing does not tell which key was close.
      const isRelay = timingSafeEqual(presented, relay);
      const isOperator = timingSafeEqual(presented, operator);
      const isReader = timingSafeEqual(presented, reader) && keys.readerKey !== undefined;
      const principal = isOperator ? OPERATOR : isRelay ? RELAY : isReader ? READER : undefined;
      if (!principal) return { ok: false, error: { status: 401, reason: "invalid key" } };
      return requireRole({ ...principal, roles: [...principal.roles] }, need, MISSING[need]);
    },
  };
}
