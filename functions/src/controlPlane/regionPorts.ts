import { type ArmClient, createScopeResolver } from "../arm";
import { probeAcknowledge, resourceRegion, scopeOfResource } from "../arm/regionProbe";
import type { RegionPorts } from "./regionWatch";

/** RegionWatch's ports over the ARM client (arm/regionProbe.ts, arm/scope.ts). */
export function createRegionPorts(arm: ArmClient): RegionPorts {
  const scopes = createScopeResolver(arm);
  return {
    probe: (scope) => probeAcknowledge(arm, scope),
    async scopeOf(vm) {
      const r = await scopes.resolve(vm);
      return r.ok
        ? r
        : {
            ok: false,
            error: { status: r.error.status, code: r.error.code, message: r.error.message },
          };
    },
    scopeOfResource,
    async region(resourceId) {
      const r = await resourceRegion(arm, resourceId);
      return r.ok
        ? r
        : {
            ok: false,
            error: { status: r.error.status, code: r.error.code, message: r.error.message },
          };
    },
  };
}
