import type { ArmEngine } from "../arm/engine";
import type { FabricEngine } from "../engine/engine";
import type { EventGridService } from "../eventGrid/service";
import type { HealthGates } from "../health/gates";
import type { KubernetesEngine } from "../kubernetes/engine";
import type { ControlResult } from "../model/controlResult";

/** One control route: a method, a path pattern (its groups are the params), what it runs. */
export type Route = {
  readonly method: string;
  readonly pattern: RegExp;
  readonly run: (ctx: RouteContext) => ControlResult<unknown> | Promise<ControlResult<unknown>>;
  readonly status?: number;
};

/** What the control API drives: the fabric, the loopback ARM and Kubernetes, the health endpoints. */
export interface ControlTargets {
  readonly engine: FabricEngine;
  /** The Event Grid system topic's webhook subscriptions. */
  readonly eventGrid: EventGridService;
  readonly arm: ArmEngine;
  readonly health: HealthGates;
  readonly imdsUrl: (vm: string) => string;
  /** Where the ARM listener and its token endpoint are (`GET /control/arm`). */
  readonly armInfo: () => unknown;
  readonly k8s: KubernetesEngine;
  /** Where the Kubernetes API server stand-in is and who its token is (`GET /control/kubernetes`). */
  readonly kubernetesInfo: () => unknown;
}

export interface RouteContext extends ControlTargets {
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  readonly body: () => Promise<unknown>;
}

export const okValue = <T>(value: T): ControlResult<T> => ({ ok: true, value });

/** A body that must be an object (path params are merged into it); anything else reads as {}. */
export async function objectBody(body: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const b = await body();
  return b !== null && typeof b === "object" && !Array.isArray(b)
    ? (b as Record<string, unknown>)
    : {};
}
