import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import { AuthUnavailableError } from "./types";

/**
 * Finds the Azure resource behind a managed identity's object id. Entra only puts `xms_mirid` /
 * `xms_az_rid` in managed-identity tokens issued for Microsoft's own resources (ARM, Storage...),
 * not for a customer's app registration such as the coordinator's, so in practice a relay's
 * token names its identity only by `oid`. Microsoft Graph knows the rest: a managed identity's
 * service principal lists its resource id in `alternativeNames`.
 */
export interface ManagedIdentityResolver {
  /** The identity's resource id (a VM or scale set for system-assigned, the identity itself for user-assigned); undefined when the object id is not a managed identity. */
  resourceIdOf(objectId: string): Promise<string | undefined>;
}

/** Structurally an @azure/identity TokenCredential, so the host passes its own credential. */
export interface GraphCredential {
  getToken(scope: string): Promise<{ token: string } | null>;
}

const ServicePrincipal = z.looseObject({
  servicePrincipalType: z.string().optional(),
  alternativeNames: z.array(z.string()).optional(),
});

const OBJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A system-assigned identity's resource never changes for its object id; a week is only to bound memory. */
const FOUND_TTL_MS = 7 * 24 * 3600_000;
/** "Not a managed identity" is re-asked soon, so a freshly created identity is not locked out. */
const NOT_FOUND_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const TIMEOUT_MS = 5_000;

export function createGraphIdentityResolver(options: {
  credential: GraphCredential;
  /** Default https://graph.microsoft.com (other clouds have their own Graph endpoint). */
  graphUrl?: string;
  fetchImpl?: typeof fetch;
}): ManagedIdentityResolver {
  const graph = (options.graphUrl ?? "https://graph.microsoft.com").replace(/\/+$/, "");
  const scope = `${graph}/.default`;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  const cache = new Map<string, { resourceId: string | undefined; until: number }>();
  const inflight = new Map<string, Promise<string | undefined>>();

  const lookup = async (objectId: string): Promise<string | undefined> => {
    let res: Response;
    try {
      const token = await options.credential.getToken(scope);
      if (!token) throw new Error("no Graph token");
      res = await fetchImpl(
        `${graph}/v1.0/servicePrincipals/${objectId}?$select=servicePrincipalType,alternativeNames`,
        {
          headers: { authorization: `Bearer ${token.token}` },
          signal: AbortSignal.timeout(TIMEOUT_MS),
        },
      );
    } catch (e) {
      throw new AuthUnavailableError(`cannot look up managed identity ${objectId} in Graph`, {
        cause: e,
      });
    }
    if (res.status === 404) return undefined;
    if (!res.ok)
      throw new AuthUnavailableError(
        `Graph answered HTTP ${res.status} looking up managed identity ${objectId} (the coordinator's identity needs Application.Read.All)`,
      );
    const sp = parseJsonWith(ServicePrincipal, await res.text().catch(() => ""));
    if (!sp.ok || sp.value.servicePrincipalType !== "ManagedIdentity") return undefined;
    return sp.value.alternativeNames?.find((n) => n.toLowerCase().startsWith("/subscriptions/"));
  };

  return {
    async resourceIdOf(objectId) {
      if (!OBJECT_ID.test(objectId)) return undefined;
      const key = objectId.toLowerCase();
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) return hit.resourceId;
      let pending = inflight.get(key);
      if (!pending) {
        pending = lookup(key).finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      const resourceId = await pending;
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(key, {
        resourceId,
        until: Date.now() + (resourceId ? FOUND_TTL_MS : NOT_FOUND_TTL_MS),
      });
      return resourceId;
    },
  };
}
