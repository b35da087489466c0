import { z } from "zod";
import { parseComputeResourceId } from "./resourceId";
import { type AppRoleNames, rolesFromAppRoles } from "./roles";
import type { Principal } from "./types";

const text = z.string().min(1).max(1024);

/** The claims Quiesce uses from an Entra access token (signature, iss, aud, exp already checked). */
export const EntraClaims = z.looseObject({
  tid: text,
  oid: text.optional(),
  sub: text.optional(),
  appid: text.optional(),
  azp: text.optional(),
  name: text.optional(),
  roles: z.array(z.string().max(256)).max(200).optional(),
  xms_mirid: text.optional(),
  xms_az_rid: text.optional(),
});
export type EntraClaims = z.infer<typeof EntraClaims>;

/**
 * The compute resource a managed-identity token speaks for: `xms_az_rid` (where the token was
 * requested) when present, else `xms_mirid` when the identity is a VM's or scale set's own
 * (system-assigned). A user-assigned identity's id names no machine, so it binds nothing.
 */
export function boundComputeResource(claims: EntraClaims): string | undefined {
  if (claims.xms_az_rid) return claims.xms_az_rid;
  if (claims.xms_mirid && parseComputeResourceId(claims.xms_mirid)) return claims.xms_mirid;
  return undefined;
}

export function principalFromClaims(
  claims: EntraClaims,
  names: AppRoleNames,
): Principal | undefined {
  const id = claims.oid ?? claims.sub;
  if (!id) return undefined;
  const app = claims.appid ?? claims.azp;
  const display = [
    claims.name ? `name=${claims.name}` : undefined,
    app ? `appid=${app}` : undefined,
    `oid=${id}`,
    claims.xms_mirid ? `mi=${claims.xms_mirid}` : undefined,
  ]
    .filter(Boolean)
    .join(" ");
  const bound = boundComputeResource(claims);
  return {
    id,
    roles: rolesFromAppRoles(claims.roles ?? [], names),
    display: `entra ${display}`,
    kind: "entra",
    ...(bound ? { boundResourceId: bound } : {}),
    ...(claims.xms_mirid ? { identityResourceId: claims.xms_mirid } : {}),
  };
}
