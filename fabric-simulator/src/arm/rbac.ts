import { covers } from "./ids";
import type { ArmWorld, RoleAssignment } from "./types";

/**
 * Azure RBAC as far as the simulator needs it: a request is allowed when one of the caller's role
 * assignments covers the resource (its scope is the resource or an ancestor) and lists the action.
 * No deny assignments, no conditions, no propagation delay.
 */

function matches(pattern: string, action: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "i",
  );
  return re.test(action);
}

export function authorized(
  assignments: readonly RoleAssignment[],
  principalId: string,
  resourceId: string,
  action: string,
): boolean {
  return assignments.some(
    (a) =>
      a.principalId.toLowerCase() === principalId.toLowerCase() &&
      covers(a.scope, resourceId) &&
      a.actions.some((p) => matches(p, action)),
  );
}

/**
 * Whether the principal holds `action` at `scope`, above it or anywhere below it: Resource Graph's
 * test of a subscription it is asked about (a role on one resource group of the subscription is
 * enough to query it; the rows are then filtered by what the caller may read).
 */
export function holdsWithin(
  assignments: readonly RoleAssignment[],
  principalId: string,
  scope: string,
  action: string,
): boolean {
  return assignments.some(
    (a) =>
      a.principalId.toLowerCase() === principalId.toLowerCase() &&
      (covers(a.scope, scope) || covers(scope, a.scope)) &&
      a.actions.some((p) => matches(p, action)),
  );
}

/** Add an assignment; one already there for the same principal, scope and role is replaced. */
export function grant(world: ArmWorld, assignment: RoleAssignment): ArmWorld {
  const same = (a: RoleAssignment) =>
    a.principalId.toLowerCase() === assignment.principalId.toLowerCase() &&
    a.scope.toLowerCase() === assignment.scope.toLowerCase() &&
    a.role === assignment.role;
  return {
    ...world,
    roleAssignments: [...world.roleAssignments.filter((a) => !same(a)), assignment],
  };
}

/** Remove the principal's assignments (at one scope, or everywhere); returns how many went. */
export function revoke(
  world: ArmWorld,
  principalId: string,
  scope: string | undefined,
): { world: ArmWorld; removed: number } {
  const keep = world.roleAssignments.filter(
    (a) =>
      a.principalId.toLowerCase() !== principalId.toLowerCase() ||
      (scope !== undefined && a.scope.toLowerCase() !== scope.toLowerCase().replace(/\/+$/, "")),
  );
  return {
    world: { ...world, roleAssignments: keep },
    removed: world.roleAssignments.length - keep.length,
  };
}
