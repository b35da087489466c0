import { z } from "zod";
import type { StoreOptions } from "../options";
import { encodeKey } from "./keys";
import { tableConnection } from "./open";
import { CountedTable, type TableObserver, tableClient, zeroCounts } from "./tables";

/**
 * Where Azure offers approval through ARM, as the coordinator learnt it (controlPlane/
 * regionWatch.ts): its own table, `ControlPlaneRegions`, shared by every instance. Two kinds of
 * row: one per Azure region (partition `region`: available or not, since when, how learnt), and
 * one per place the status API shows (partition `place`: a cluster's group, or an agentless
 * cluster's Azure resource) naming the region its VMs run in. Tens of rows in all, read whole.
 */
/** How the coordinator learnt it: its own probe, or the answer to a real acknowledge. */
export type SupportSource = "probe" | "acknowledge";

/** A region's record (controlPlane/regionSupport.ts decides how it moves). */
export interface RegionSupport {
  /** Lower case, as Azure's `location` (e.g. `westeurope`). */
  region: string;
  availability: "available" | "notAvailable";
  /** When the availability last changed (what the status API shows as "since"). */
  since: number;
  /** When an answer last confirmed it. */
  checkedAt: number;
  how: SupportSource;
  /** ARM's status and code that told it, e.g. `404 InvalidScheduledEventId`. */
  detail: string;
}

const REGION = "region";
const PLACE = "place";

const RegionRow = z.object({
  availability: z.enum(["available", "notAvailable"]),
  since: z.number(),
  checkedAt: z.number(),
  how: z.enum(["probe", "acknowledge"]),
  detail: z.string(),
});
const PlaceRow = z.object({ region: z.string().min(1) });

export interface RegionSupportSnapshot {
  regions: ReadonlyMap<string, RegionSupport>;
  /** Place key (placeKey) → region. */
  places: ReadonlyMap<string, string>;
}

/** A group of a cluster (status API's kind and name), or an Azure resource id of an agentless cluster. */
export function placeKey(cluster: string, kind: string, name: string): string {
  return [cluster, kind, name.toLowerCase()].map(encodeKey).join("|");
}

export class RegionSupportTable {
  constructor(private readonly table: CountedTable) {}

  static open(options: StoreOptions, observer?: TableObserver): RegionSupportTable {
    return new RegionSupportTable(
      new CountedTable(
        tableClient(tableConnection(options), `${options.tablePrefix}ControlPlaneRegions`),
        zeroCounts(),
        observer,
        "ControlPlaneRegions",
      ),
    );
  }

  init(): Promise<void> {
    return this.table.create();
  }

  /** Every row; a row that does not parse is left out (the next answer rewrites it). */
  async read(): Promise<RegionSupportSnapshot> {
    const regions = new Map<string, RegionSupport>();
    const places = new Map<string, string>();
    for (const row of await this.table.query(undefined)) {
      if (row.partitionKey === REGION) {
        const r = RegionRow.safeParse(row);
        if (r.success) regions.set(row.rowKey, { region: row.rowKey, ...r.data });
      } else if (row.partitionKey === PLACE) {
        const p = PlaceRow.safeParse(row);
        if (p.success) places.set(row.rowKey, p.data.region);
      }
    }
    return { regions, places };
  }

  /** Last writer wins: every writer records what an answer from Azure just said. */
  async saveRegion(r: RegionSupport): Promise<void> {
    const { region, ...columns } = r;
    await this.table.upsertTogether([
      { partitionKey: REGION, rowKey: encodeKey(region), ...columns },
    ]);
  }

  async savePlaces(places: ReadonlyMap<string, string>): Promise<void> {
    if (places.size === 0) return;
    await this.table.upsertTogether(
      [...places].map(([key, region]) => ({ partitionKey: PLACE, rowKey: key, region })),
    );
  }
}
