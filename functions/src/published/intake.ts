import { eventKey } from "@quiesce/protocol/imds";
import type { PublishedObservation } from "@quiesce/protocol/published";
import type { PipelineDeps } from "../pipeline/deps";
import { runRound } from "../rounds/runner";
import { mapLimit } from "../store";
import type { OwnerIndexCache } from "./ownerIndexCache";

/**
 * Events Azure published off the VM (an Event Grid delivery, a Resource Graph page) into the
 * clusters they belong to: each observation goes to the cluster(s) already holding its event,
 * else to those owning its scope (owners.ts), else to the unclaimed cluster (a setting); there it
 * is applied by the core (core/src/rounds/published.ts) in one round (rounds/runner.ts), whose
 * effects are derived like every round's. A cluster whose state moved is handed to `followUp`
 * (the coordinator's own drains and approvals, controlPlane/agentlessRun.ts), not awaited here.
 */
export interface IntakeSummary {
  /** Observations that changed a cluster. */
  applied: number;
  /** Duplicates and stale deliveries: nothing to change. */
  unchanged: number;
  /** Observations no cluster owns (kept in the unclaimed cluster unless it is turned off). */
  unclaimed: number;
  /** Resource Graph rows of ended events no cluster knew: history, not news. */
  skipped: number;
  clusters: string[];
}

export interface IntakeOptions {
  /** Where the event is already held, from one listing (the backstop) instead of a query each. */
  knownClusters?: ReadonlyMap<string, readonly string[]>;
  /** Leave an ended event no cluster holds alone (Resource Graph keeps them for days). */
  skipUnknownEnded?: boolean;
}

/** The intake, as Event Grid's handlers (handlers/eventGrid.ts) and the backstop call it. */
export type PublishedIntake = (
  observations: readonly PublishedObservation[],
  opts?: IntakeOptions,
) => Promise<IntakeSummary>;

const ENDED_STATUSES = new Set(["Completed", "Canceled"]);
/** Events loaded, decided and committed together: a conflict retries this many, not the delivery. */
const CHUNK = 100;
const LOOKUPS_IN_FLIGHT = 16;
const CHUNKS_IN_FLIGHT = 4;

/**
 * A delivery's cost follows its own events, never the events stored: each event's clusters come
 * from the event index (one partition query and a point read each, store/eventIndex.ts), and the
 * observations of one cluster are applied in chunks of 100, each one load of their rows (point
 * reads), one decision and one commit, instead of a load and a commit per event.
 */
export function createPublishedIntake(
  deps: PipelineDeps,
  owners: OwnerIndexCache,
  followUp: (cluster: string, eventKeys: readonly string[]) => void,
): PublishedIntake {
  return async (
    observations: readonly PublishedObservation[],
    opts: IntakeOptions = {},
  ): Promise<IntakeSummary> => {
    const summary: IntakeSummary = {
      applied: 0,
      unchanged: 0,
      unclaimed: 0,
      skipped: 0,
      clusters: [],
    };
    // null: unclaimed observations are dropped (the setting is "off").
    const fallback = deps.options.unclaimedCluster;
    const keys = [...new Set(observations.map((o) => eventKey(o.event.EventId)))];
    const holding = new Map<string, string[]>();
    await mapLimit(keys, LOOKUPS_IN_FLIGHT, async (key) => {
      let clusters = opts.knownClusters
        ? [...(opts.knownClusters.get(key) ?? [])]
        : await deps.store.findEventClusters(key);
      if (fallback !== null && clusters.length > 1 && clusters.includes(fallback)) {
        // Held as unclaimed until a relay reported it into its own cluster: that one owns it now.
        await deps.store.forgetEvent(fallback, key);
        clusters = clusters.filter((c) => c !== fallback);
      }
      holding.set(key, clusters);
    });
    // Each observation to its clusters, in delivery order; an event first seen in this delivery
    // is routed once, and its later observations follow it there.
    const routed = new Map<string, PublishedObservation[]>();
    for (const obs of observations) {
      const key = eventKey(obs.event.EventId);
      let clusters = holding.get(key) ?? [];
      if (clusters.length === 0) {
        if (opts.skipUnknownEnded && ENDED_STATUSES.has(obs.event.EventStatus)) {
          summary.skipped++;
          continue;
        }
        clusters = await owners.owning(obs.scope, obs.event.Resources);
        if (clusters.length === 0) {
          summary.unclaimed++;
          if (fallback === null) continue;
          clusters = [fallback];
        }
        holding.set(key, clusters);
      }
      for (const cluster of clusters) routed.set(cluster, [...(routed.get(cluster) ?? []), obs]);
    }
    const touched = new Map<string, Set<string>>();
    const chunks = [...routed].flatMap(([cluster, list]) =>
      chunkByEvent(list).map((chunk) => ({ cluster, chunk })),
    );
    // Chunks hold different events; what they share, the budget row, is written under its ETag.
    const results = await mapLimit(chunks, CHUNKS_IN_FLIGHT, ({ cluster, chunk }) =>
      applyTo(deps, cluster, chunk),
    );
    for (const [n, { cluster, chunk }] of chunks.entries())
      chunk.forEach((obs, k) => {
        if (!results[n]?.[k]) {
          summary.unchanged++;
          return;
        }
        summary.applied++;
        const set = touched.get(cluster) ?? new Set<string>();
        touched.set(cluster, set.add(eventKey(obs.event.EventId)));
      });
    summary.clusters = [...touched.keys()].sort();
    for (const [cluster, keys] of touched) followUp(cluster, [...keys]);
    return summary;
  };
}

/** A cluster's observations in chunks of at most CHUNK events, each event's in delivery order. */
function chunkByEvent(list: readonly PublishedObservation[]): PublishedObservation[][] {
  const byEvent = new Map<string, PublishedObservation[]>();
  for (const obs of list) {
    const key = eventKey(obs.event.EventId);
    byEvent.set(key, [...(byEvent.get(key) ?? []), obs]);
  }
  const events = [...byEvent.values()];
  return Array.from({ length: Math.ceil(events.length / CHUNK) }, (_, i) =>
    events.slice(i * CHUNK, (i + 1) * CHUNK).flat(),
  );
}

/** Some observations of one cluster, applied together in one round: which changed anything. */
async function applyTo(
  deps: PipelineDeps,
  cluster: string,
  observations: readonly PublishedObservation[],
): Promise<boolean[]> {
  const policy = deps.policies.for(cluster);
  // The events' own rows, as a report reads them: not the whole cluster, which at 10,000 VMs is
  // every member row, nor its events partition, which holds every event kept for retention
  // (core/src/rounds/round.ts, readSet). The gates are asked on every read, as the sweep does.
  const outcome = await runRound(
    deps,
    cluster,
    { kind: "published", observations, inputs: {} },
    { policy, evaluationInputs: (state) => deps.controlPlane.waitingGateInputs(state, policy) },
  );
  return outcome.changed ?? observations.map(() => false);
}
