import { type LocalCluster, type LocalClusterOptions, startLocalCluster } from "@quiesce/demo";
import type { TopologyInput } from "@quiesce/fabric-simulator";
import { waitFor } from "../../support/wait";
import { hookMarkers, type Markers } from "./markers";

/**
 * Short intervals so a whole lifecycle takes seconds: relays report every second while an event
 * is active, a lease lasts 5 s, a silent relay (idle or not) stops counting as live after 15 s.
 */
export const FAST_POLICY = {
  activeReportSeconds: 1,
  idleReportSeconds: 5,
  approvalLeaseSeconds: 5,
  livenessTimeoutSeconds: 15,
  idleLivenessTimeoutSeconds: 15,
};

export interface E2eCluster {
  c: LocalCluster;
  markers: Markers;
  stop(): Promise<void>;
}

/** A local cluster whose every relay runs the marker hooks, ready once every relay is live. */
export async function startE2eCluster(
  topology: TopologyInput,
  policy: Record<string, unknown>,
  extra: Partial<LocalClusterOptions> = {},
  /** Runs once the cluster is up, before waiting for the relays (e.g. to aim a proxy at it). */
  onStarted?: (c: LocalCluster) => void,
): Promise<E2eCluster> {
  const markers = hookMarkers();
  let c: LocalCluster | undefined;
  try {
    c = await startLocalCluster({
      cluster: "e2e",
      topology,
      timeScale: 1,
      policy: { default: { ...FAST_POLICY, ...policy } },
      sweepIntervalMs: 500,
      relaySettings: {
        QUIESCE_DRAIN_COMMAND: markers.command,
        QUIESCE_RECOVER_COMMAND: markers.command,
        QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: 0,
      },
      // A relay cut off from the coordinator comes back within a second of it.
      relayOptions: { reportRetry: { baseMs: 200, maxMs: 1_000 } },
      ...extra,
    });
    const cluster = c;
    onStarted?.(cluster);
    const expected = cluster.relays.size;
    await waitFor(
      `${expected} live relays`,
      async () => (await cluster.status.cluster(cluster.cluster)).liveMembers === expected,
      30_000,
      100,
    );
  } catch (e) {
    await c?.stop();
    markers.remove();
    throw e;
  }
  const started = c;
  return {
    c: started,
    markers,
    async stop() {
      await started.stop();
      markers.remove();
    },
  };
}
