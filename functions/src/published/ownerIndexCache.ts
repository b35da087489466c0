import type { Clock } from "@quiesce/protocol";
import type { Policies } from "@quiesce/protocol/policy";
import type { EventScope } from "@quiesce/protocol/published";
import { type ClusterStore, StatusQueries } from "../store";
import { buildOwnerIndex, type OwnerIndex, owningClusters } from "./owners";

/** The index is rebuilt at most this often, and on a miss (a relay may have just registered) at most every MISS_REFRESH_MS. */
const MAX_AGE_MS = 5 * 60_000;
const MISS_REFRESH_MS = 5_000;

/**
 * The owner index (owners.ts) over every cluster's members, kept per instance: one members
 * listing (the status summary's read) every 5 minutes, or sooner when an event's scope matches
 * nobody (a relay may have registered since). Deliveries are rare (a few per event), so this
 * costs a listing per 5 minutes at most while events arrive, and nothing otherwise.
 */
export class OwnerIndexCache {
  private index: OwnerIndex | null = null;
  private builtAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: ClusterStore,
    private readonly policies: Policies,
    private readonly clock: Clock,
  ) {}

  async owning(scope: EventScope, resources: readonly string[]): Promise<string[]> {
    const now = this.clock.now();
    if (!this.index || now - this.builtAt >= MAX_AGE_MS) await this.rebuild(now);
    let found = owningClusters(this.index as OwnerIndex, scope, resources);
    if (found.length === 0 && now - this.builtAt >= MISS_REFRESH_MS) {
      await this.rebuild(now);
      found = owningClusters(this.index as OwnerIndex, scope, resources);
    }
    return found;
  }

  /** The subscriptions of every owned resource (rebuilt when older than 5 minutes). */
  async subscriptions(): Promise<readonly string[]> {
    const now = this.clock.now();
    if (!this.index || now - this.builtAt >= MAX_AGE_MS) await this.rebuild(now);
    return (this.index as OwnerIndex).subscriptions;
  }

  private async rebuild(now: number): Promise<void> {
    const members = await new StatusQueries(this.store.tables, this.store.memberRows).members();
    this.index = buildOwnerIndex(this.policies, members);
    this.builtAt = now;
  }
}
