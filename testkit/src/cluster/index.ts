import { type LocalCluster, type LocalClusterOptions, startLocalCluster } from "@quiesce/demo";
import type { FabricSimulator, Instant, SimEvent, TopologyInput } from "@quiesce/fabric-simulator";
import { hookMarkers, type Markers } from "../markers";
import { waitFor } from "../wait";

/**
 * The whole system on this machine (demo's local cluster: Azurite, the coordinator, the fabric
 * simulator, one relay loop per VM) with marker-file hooks, for the end-to-end tests and the
 * benchmarks; and what Azure saw, read from the fabric simulator's timeline.
 */

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

export interface HookedCluster {
  c: LocalCluster;
  markers: Markers;
  stop(): Promise<void>;
}

/** What startE2eCluster returns (the same shape). */
export type E2eCluster = HookedCluster;

/** Waits until the coordinator counts `expected` live relays in the cluster. */
export function waitForLiveRelays(c: LocalCluster, expected: number): Promise<true> {
  return waitFor(
    `${expected} live relays`,
    async () => (await c.status.cluster(c.cluster)).liveMembers === expected,
    30_000,
    100,
  );
}

/**
 * A local cluster whose every relay runs the marker hooks (on top of `o.relaySettings`), ready
 * once every relay is live. `onStarted` runs once it is up, before waiting for the relays (e.g.
 * to aim a proxy at it).
 */
export async function startHookedCluster(
  o: LocalClusterOptions,
  onStarted?: (c: LocalCluster) => void,
): Promise<HookedCluster> {
  const markers = hookMarkers();
  let c: LocalCluster | undefined;
  try {
    c = await startLocalCluster({
      ...o,
      relaySettings: {
        ...o.relaySettings,
        QUIESCE_DRAIN_COMMAND: markers.command,
        QUIESCE_RECOVER_COMMAND: markers.command,
      },
    });
    onStarted?.(c);
    await waitForLiveRelays(c, c.relays.size);
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

/** The end-to-end tests' cluster "e2e": FAST_POLICY under `policy`, sweeping every 500 ms. */
export function startE2eCluster(
  topology: TopologyInput,
  policy: Record<string, unknown> | ((fabric: FabricSimulator) => Record<string, unknown>),
  extra: Partial<LocalClusterOptions> = {},
  onStarted?: (c: LocalCluster) => void,
): Promise<HookedCluster> {
  return startHookedCluster(
    {
      cluster: "e2e",
      topology,
      timeScale: 1,
      policy: (f: FabricSimulator) => ({
        default: { ...FAST_POLICY, ...(typeof policy === "function" ? policy(f) : policy) },
      }),
      sweepIntervalMs: 500,
      relaySettings: { QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: 0 },
      // A relay cut off from the coordinator comes back within a second of it.
      relayOptions: { reportRetry: { baseMs: 200, maxMs: 1_000 } },
      ...extra,
    },
    onStarted,
  );
}

const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface StartRequestSeen {
  vm: string;
  at: Instant;
}

/** Every accepted StartRequests POST that named the event, in arrival order. */
export function startRequestsFor(fabric: FabricSimulator, eventId: string): StartRequestSeen[] {
  return fabric
    .timeline()
    .entries.flatMap((e) =>
      e.kind === "startRequests" && e.eventIds.some((id) => sameId(id, eventId))
        ? [{ vm: e.vm, at: e.at }]
        : [],
    );
}

export function simEvent(fabric: FabricSimulator, eventId: string): SimEvent {
  const ev = fabric.event(eventId);
  if (!ev) throw new Error(`the fabric has no event ${eventId}`);
  return ev;
}

export function groupVms(fabric: FabricSimulator, eventId: string): readonly string[] {
  const group = fabric.state().groups[simEvent(fabric, eventId).group];
  if (!group) throw new Error(`no group for ${eventId}`);
  return group.vms;
}

export type EventDetail = Awaited<ReturnType<LocalCluster["status"]["event"]>>;

/**
 * Waits until the coordinator shows the event in one of `phases`, with the history row of its
 * move there (history is appended just after the event row it records: a read between the two
 * writes would see the phase without it); returns its detail.
 */
export function waitForPhase(
  c: LocalCluster,
  eventId: string,
  phases: string[],
  timeoutMs: number,
  everyMs = 100,
): Promise<EventDetail> {
  return waitFor(
    `${eventId} in ${phases.join("/")}`,
    async () => {
      const d = await c.status.event(eventId, c.cluster);
      const recorded = d.timeline.some((t) => t.kind !== "operator" && t.to === d.phase);
      if (phases.includes(d.phase) && recorded) return d;
      // Thrown, not returned: a timeout then says where the event stood and what it waited for.
      throw new Error(
        `${d.phase}${recorded ? "" : " (no history row of the move there)"}: ${d.waitingFor ?? "nothing"}; history: ${d.timeline.map((t) => t.to).join(" → ")}`,
      );
    },
    timeoutMs,
    everyMs,
  );
}
