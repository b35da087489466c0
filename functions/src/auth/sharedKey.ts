import { createHash, timingSafeEqual } from "node:crypto";
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

const MISSING: Record<Role, string> = {
  relay: "relay reports need the relay key",
  reader: "the relay key cannot read status; use the operator key",
  operator: "operator actions need the operator key",
};

/** Local mode: two generated keys, one for relays and one for the status and operator routes. */
export function createSharedKeyAuthenticator(keys: {
  relayKey: string;
  operatorKey: string;
}): Authenticator {
  if (keys.relayKey === keys.operatorKey)
    throw new Error("QUIESCE_RELAY_KEY and QUIESCE_OPERATOR_KEY must differ");
  const relay = digest(keys.relayKey);
  const operator = digest(keys.operatorKey);
  return {
    async authenticate(authorization, need) {
      const bearer = parseBearer(authorization);
      if (!bearer.ok) return { ok: false, status: 401, error: bearer.error };
      const presented = digest(bearer.credential);
      // Both comparisons always run, so timing does not tell which key was close.
      const isRelay = timingSafeEqual(presented, relay);
      const isOperator = timingSafeEqual(presented, operator);
      const principal = isOperator ? OPERATOR : isRelay ? RELAY : undefined;
      if (!principal) return { ok: false, status: 401, error: "invalid key" };
      return requireRole({ ...principal, roles: [...principal.roles] }, need, MISSING[need]);
    },
  };
}
