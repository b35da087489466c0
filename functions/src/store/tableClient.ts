import { TableClient } from "@azure/data-tables";
import type { TokenCredential } from "@azure/identity";
import { batchBodyPolicy } from "./batchBody";
import { sharedHttpClient } from "./pointRead";

/** One table's client: over the shared connection pool, transactions made safe (batchBody.ts). */

export interface TableConnection {
  connectionString?: string;
  endpoint?: string;
  credential?: TokenCredential;
}

export function tableClient(connection: TableConnection, name: string): TableClient {
  if (connection.connectionString) {
    const insecure = /DefaultEndpointsProtocol=http;|TableEndpoint=http:\/\//i.test(
      connection.connectionString,
    );
    return TableClient.fromConnectionString(connection.connectionString, name, {
      allowInsecureConnection: insecure,
      httpClient: sharedHttpClient,
      additionalPolicies: [{ policy: batchBodyPolicy, position: "perCall" }],
    });
  }
  if (!connection.endpoint || !connection.credential)
    throw new Error("a table connection needs a connection string or an endpoint and a credential");
  return new TableClient(connection.endpoint, name, connection.credential, {
    httpClient: sharedHttpClient,
    additionalPolicies: [{ policy: batchBodyPolicy, position: "perCall" }],
  });
}
