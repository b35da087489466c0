import { type Clock, systemClock } from "@quiesce/protocol";
import type { CoordinatorSettings } from "../config";
import { ClusterStore } from "./clusterStore";
import { lazyCredential } from "./credential";
import {
  CountedTable,
  openTables,
  type TableConnection,
  type TableObserver,
  tableClient,
  zeroCounts,
} from "./tables";

/**
 * A connection string (Azurite, or key-based access) or the table endpoint reached with the
 * app's managed identity: user-assigned when QUIESCE_STORAGE_CLIENT_ID is set.
 */
export function tableConnection(settings: CoordinatorSettings): TableConnection {
  return settings.QUIESCE_STORAGE_CONNECTION_STRING
    ? { connectionString: settings.QUIESCE_STORAGE_CONNECTION_STRING }
    : {
        ...(settings.QUIESCE_TABLE_ENDPOINT ? { endpoint: settings.QUIESCE_TABLE_ENDPOINT } : {}),
        credential: lazyCredential((identity) =>
          settings.QUIESCE_STORAGE_CLIENT_ID
            ? new identity.ManagedIdentityCredential({
                clientId: settings.QUIESCE_STORAGE_CLIENT_ID,
              })
            : new identity.DefaultAzureCredential(),
        ),
      };
}

export function openStore(
  settings: CoordinatorSettings,
  clock: Clock = systemClock,
  observer?: TableObserver,
): ClusterStore {
  const totals = zeroCounts();
  return new ClusterStore(
    openTables(tableConnection(settings), settings.QUIESCE_TABLE_PREFIX, totals, observer),
    totals,
    clock,
  );
}

/** The notification outbox: its own table, its own counters (not a report's cost). */
export function openOutboxTable(
  settings: CoordinatorSettings,
  observer?: TableObserver,
): CountedTable {
  return new CountedTable(
    tableClient(tableConnection(settings), `${settings.QUIESCE_TABLE_PREFIX}Outbox`),
    zeroCounts(),
    observer,
    "Outbox",
  );
}

/** Attestation's own table: the nonce key and the AIA cache (attestation/keyStore.ts). */
export function openAttestationTable(
  settings: CoordinatorSettings,
  observer?: TableObserver,
): CountedTable {
  return new CountedTable(
    tableClient(tableConnection(settings), `${settings.QUIESCE_TABLE_PREFIX}Attestation`),
    zeroCounts(),
    observer,
    "Attestation",
  );
}
