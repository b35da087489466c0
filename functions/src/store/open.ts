import { type Clock, systemClock } from "@quiesce/protocol";
import type { StoreOptions } from "../options";
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
 * app's managed identity: user-assigned when a client id is given.
 */
export function tableConnection(options: StoreOptions): TableConnection {
  const { clientId } = options;
  return options.connectionString
    ? { connectionString: options.connectionString }
    : {
        ...(options.tableEndpoint ? { endpoint: options.tableEndpoint } : {}),
        credential: lazyCredential((identity) =>
          clientId
            ? new identity.ManagedIdentityCredential({ clientId })
            : new identity.DefaultAzureCredential(),
        ),
      };
}

export function openStore(
  options: StoreOptions,
  clock: Clock = systemClock,
  observer?: TableObserver,
): ClusterStore {
  const totals = zeroCounts();
  return new ClusterStore(
    openTables(tableConnection(options), options.tablePrefix, totals, observer),
    totals,
    clock,
  );
}

/** The notification outbox: its own table, its own counters (not a report's cost). */
export function openOutboxTable(options: StoreOptions, observer?: TableObserver): CountedTable {
  return new CountedTable(
    tableClient(tableConnection(options), `${options.tablePrefix}Outbox`),
    zeroCounts(),
    observer,
    "Outbox",
  );
}

/** Attestation's own table: the nonce key and the AIA cache (attestation/keyStore.ts). */
export function openAttestationTable(
  options: StoreOptions,
  observer?: TableObserver,
): CountedTable {
  return new CountedTable(
    tableClient(tableConnection(options), `${options.tablePrefix}Attestation`),
    zeroCounts(),
    observer,
    "Attestation",
  );
}
