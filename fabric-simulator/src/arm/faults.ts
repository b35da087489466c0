import type { z } from "zod";
import type { InjectArmFault } from "./commands";
import {
  type ArmAnswer,
  armError,
  authorizationFailed,
  throttled,
  unauthenticated,
} from "./errors";
import type { ArmFault, ArmWorld } from "./types";

/** Injected ARM failures: the next N matching requests answer an error, with ARM's body for it. */

export function injectFault(
  world: ArmWorld,
  cmd: z.infer<typeof InjectArmFault>,
): { world: ArmWorld; fault: ArmFault } {
  const fault: ArmFault = {
    id: world.nextFaultId,
    status: cmd.status,
    remaining: cmd.count,
    ...(cmd.pathContains !== undefined ? { pathContains: cmd.pathContains } : {}),
    ...(cmd.method !== undefined ? { method: cmd.method } : {}),
    ...(cmd.status === 429 ? { retryAfterSeconds: cmd.retryAfterSeconds ?? 1 } : {}),
    served: 0,
  };
  return {
    world: { ...world, faults: [...world.faults, fault], nextFaultId: world.nextFaultId + 1 },
    fault,
  };
}

/** The first fault matching the request, counted; an exhausted fault is gone. */
export function takeFault(
  world: ArmWorld,
  method: string,
  path: string,
): { world: ArmWorld; fault?: ArmFault } {
  const lower = path.toLowerCase();
  const hit = world.faults.find(
    (f) =>
      (f.method === undefined || f.method === method) &&
      (f.pathContains === undefined || lower.includes(f.pathContains.toLowerCase())),
  );
  if (!hit) return { world };
  const faults = world.faults.flatMap((f) =>
    f !== hit
      ? [f]
      : f.remaining > 1
        ? [{ ...f, remaining: f.remaining - 1, served: f.served + 1 }]
        : [],
  );
  return { world: { ...world, faults }, fault: hit };
}

interface FaultContext {
  readonly tenantId: string;
  readonly subscriptionId: string;
  readonly principalId: string | null;
  readonly action: string;
  readonly path: string;
}

/** The answer ARM gives for each injectable status. */
export function faultAnswer(f: ArmFault, c: FaultContext): ArmAnswer {
  const who = c.principalId ?? "00000000-0000-0000-0000-000000000000";
  switch (f.status) {
    case 401:
      return unauthenticated.invalid(c.tenantId);
    case 403:
      return authorizationFailed(who, c.action, c.path);
    case 404:
      return armError(
        404,
        "ResourceNotFound",
        `The Resource '${c.path}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
      );
    case 409:
      return armError(
        409,
        "Conflict",
        "The request conflicts with the current state of the resource (injected).",
      );
    case 429:
      return throttled(c.subscriptionId, who, f.retryAfterSeconds ?? 1);
    case 500:
      return armError(
        500,
        "InternalServerError",
        "Encountered internal server error. Please try again (injected).",
      );
    case 503:
      return armError(
        503,
        "ServiceUnavailable",
        "The service is currently unavailable. Please try again later (injected).",
        { "retry-after": "1" },
      );
  }
}
