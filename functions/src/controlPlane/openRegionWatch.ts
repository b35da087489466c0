import type { ArmClient } from "../arm";
import type { CoordinatorOptions } from "../options";
import { RegionSupportTable } from "../store/regionSupport";
import type { TableObserver } from "../store/tables";
import { createRegionPorts } from "./regionPorts";
import { RegionWatch, type RegionWatchDeps } from "./regionWatch";

/** The region watch of a coordinator with the control plane on; creates its table. */
export async function openRegionWatch(
  arm: ArmClient,
  options: Pick<CoordinatorOptions, "store">,
  deps: RegionWatchDeps & { telemetry: { table: TableObserver } },
): Promise<RegionWatch> {
  const table = RegionSupportTable.open(options.store, deps.telemetry.table);
  await table.init();
  return new RegionWatch(createRegionPorts(arm), table, deps);
}
