import type { HookRun, RelayReport } from "@quiesce/protocol/relay";

/**
 * Many relays without their loops, for load: each VM of a fleet has an identity, a boot id and
 * its own report sequence, and reports what a benchmark tells it to; and the two ways to drive
 * them from a few workers.
 */

export const resourceIdOf = (vm: string) =>
  `/subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/bench-rg/providers/Microsoft.Compute/virtualMachines/${vm}`;

/** `prefix` followed by i, zero-padded to `digits`, for i in [0, count). */
export const vmNames = (prefix: string, count: number, digits: number): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(digits, "0")}`);

export interface FleetOptions {
  /** VM i is names[i]. */
  names: string[];
  /** The cluster of every VM, or of VM i. */
  cluster: string | ((i: number) => string);
  /** Where VM i sits (scale set, placement group, zone), beyond its name and ids. */
  placement?: (i: number) => Partial<RelayReport["vm"]>;
}

export class Fleet {
  readonly names: string[];
  private readonly seqs: number[];

  constructor(private readonly o: FleetOptions) {
    this.names = o.names;
    this.seqs = o.names.map(() => 0);
  }

  get size(): number {
    return this.names.length;
  }

  clusterOf(i: number): string {
    return typeof this.o.cluster === "string" ? this.o.cluster : this.o.cluster(i);
  }

  identity(i: number): RelayReport["vm"] {
    const name = this.names[i] as string;
    return {
      name,
      vmId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      resourceId: resourceIdOf(name),
      ...this.o.placement?.(i),
    };
  }

  /** VM i's next report (its sequence number goes up): an empty document unless told. */
  report(
    i: number,
    o: Partial<Pick<RelayReport, "document" | "hooks" | "approvals">> = {},
  ): RelayReport {
    const seq = (this.seqs[i] ?? 0) + 1;
    this.seqs[i] = seq;
    return {
      protocol: "1.0",
      cluster: this.clusterOf(i),
      vm: this.identity(i),
      relay: { version: "0.1.0", bootId: `boot-${this.clusterOf(i)}-${i}`, seq },
      document: o.document === undefined ? { DocumentIncarnation: 1, Events: [] } : o.document,
      hooks: o.hooks ?? [],
      approvals: o.approvals ?? [],
      sentAt: new Date().toISOString(),
    };
  }
}

/** A hook run as a relay reports it now: running, or finished a moment ago. */
export function hookRun(status: HookRun["status"]): HookRun {
  const at = new Date().toISOString();
  return status === "running"
    ? { status, attempt: 1, startedAt: at }
    : { status, attempt: 1, startedAt: at, finishedAt: at };
}

/** Runs `op` from `concurrency` workers until `ms` passed (or `total` ops were started). */
export async function drive(
  concurrency: number,
  limit: { ms?: number; total?: number },
  op: (i: number) => Promise<boolean>,
): Promise<{ ok: number; errors: number; seconds: number }> {
  let next = 0;
  let ok = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = limit.ms === undefined ? Number.POSITIVE_INFINITY : start + limit.ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && (limit.total === undefined || next < limit.total)) {
        const i = next++;
        if (await op(i).catch(() => false)) ok++;
        else errors++;
      }
    }),
  );
  return { ok, errors, seconds: (performance.now() - start) / 1000 };
}

/** `fn` over every item, `concurrency` at a time. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (t: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}
