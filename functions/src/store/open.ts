import { DefaultAzureCredential, ManagedIdentityCredential } from "@azure/identity";
import type { CoordinatorSettings } from "../config";
import { ClusterStore } from "./clusterStore";
import { openTables, zeroCounts } from "./tables";

/**
 * A connection string (Azurite, or key-based access) or the table endpoint reached with the
 * app's managed identity: user-assigned when QUIESCE_STORAGE_CLIENT_ID is set.
 */
export function openStore(
  settings: CoordinatorSettings,
  clock: { now(): number } = { now: () => Date.now() },
): ClusterStore {
  const totals = zeroCounts();
  const connection = settings.QUIESCE_STORAGE_CONNECTION_STRING
    ? { connectionString: settings.QUIESCE_STORAGE_CONNECTION_STRING }
    : {
        endpoint: settings.QUIESCE_TABLE_ENDPOINT,
        credential: settings.QUIESCE_STORAGE_CLIENT_ID
          ? new ManagedIdentityCredential({ clientId: settings.QUIESCE_STORAGE_CLIENT_ID })
          : new DefaultAzureCredential(),
      };
  return new ClusterStore(
    openTables(connection, settings.QUIESCE_TABLE_PREFIX, totals),
    totals,
    clock,
  );
}
