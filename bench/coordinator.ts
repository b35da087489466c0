import { join } from "node:path";
import { type CoordinatorProcess, startCoordinatorProcess } from "@quiesce/testkit/coordinator";

/**
 * A coordinator process for a figure (the testkit's, without a sweep: its own table traffic would
 * blur the per-report counts). bench/run.mjs bundles it next to this bundle as coordinator.cjs.
 * BENCH_COORDINATOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles it; `bundle`
 * runs another build of it instead (a baseline for an A/B figure).
 */
export function startBenchCoordinator(
  connectionString: string,
  o: {
    execArgv?: string[];
    metrics?: boolean;
    keysDir?: string;
    bundle?: string;
    /** QUIESCE_* settings (a policy). */
    settings?: Record<string, string>;
  } = {},
): Promise<CoordinatorProcess> {
  return startCoordinatorProcess({
    bundle: o.bundle ?? join(__dirname, "coordinator.cjs"),
    connectionString,
    name: "bench coordinator",
    inheritOutput: true,
    metrics: o.metrics ?? false,
    ...(o.keysDir ? { keysDir: o.keysDir } : {}),
    ...(o.settings ? { settings: o.settings } : {}),
    execArgv: [
      ...(o.execArgv ?? []),
      ...(process.env.BENCH_COORDINATOR_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ],
  });
}
