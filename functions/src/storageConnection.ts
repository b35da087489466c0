import { HTTPS_OR_LOOPBACK, isHttpsOrLoopback } from "@quiesce/protocol";
import { z } from "zod";

/**
 * QUIESCE_STORAGE_CONNECTION_STRING under the same rule as every URL the coordinator sends a
 * credential to: its requests carry a shared-key signature or a SAS, so the table endpoint it
 * names is https, or plain http only to a loopback Azurite. The endpoint is where the tables SDK
 * sends them: `TableEndpoint` when given, else `<DefaultEndpointsProtocol>://<account>.table.…`
 * (https unless said otherwise), and Azurite's loopback one for `UseDevelopmentStorage=true`.
 * The error never repeats the string: it holds the key.
 */
function tableEndpointIsSafe(connectionString: string): boolean {
  const parts = new Map<string, string>();
  for (const part of connectionString.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  if (parts.get("usedevelopmentstorage")?.toLowerCase() === "true") return true;
  const endpoint = parts.get("tableendpoint");
  if (endpoint !== undefined) return isHttpsOrLoopback(endpoint);
  return (parts.get("defaultendpointsprotocol") ?? "https").toLowerCase() === "https";
}

export const StorageConnectionString = z
  .string()
  .min(1)
  .refine(tableEndpointIsSafe, `its table endpoint ${HTTPS_OR_LOOPBACK}`);
