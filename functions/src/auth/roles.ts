import type { AuthResult, Principal, Role } from "./types";

export interface AppRoleNames {
  relay: string;
  reader: string;
  operator: string;
}

/** Maps a token's `roles` claim onto Quiesce roles; operator implies reader. Unknown roles are ignored. */
export function rolesFromAppRoles(appRoles: readonly string[], names: AppRoleNames): Role[] {
  const held = new Set(appRoles);
  const roles = new Set<Role>();
  if (held.has(names.relay)) roles.add("relay");
  if (held.has(names.reader)) roles.add("reader");
  if (held.has(names.operator)) {
    roles.add("operator");
    roles.add("reader");
  }
  return [...roles];
}

/** 403 naming what is missing when an authenticated principal lacks `need`. */
export function requireRole(principal: Principal, need: Role, missing: string): AuthResult {
  if (principal.roles.includes(need)) return { ok: true, value: principal };
  return {
    ok: false,
    error: { status: 403, reason: `${principal.display} is not allowed here: ${missing}` },
  };
}
