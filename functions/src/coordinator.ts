import { ManagedIdentityCredential } from "@azure/identity";
import {
  createAuthenticator,
  createGraphIdentityResolver,
  type ManagedIdentityResolver,
} from "./auth";
import type { CoordinatorSettings } from "./config";
import {
  type Clock,
  createHandlers,
  type HandlerDeps,
  type Handlers,
  systemClock,
} from "./handlers";
import type { RetryOptions } from "./store";
import { openStore } from "./store";

export interface Coordinator {
  deps: HandlerDeps;
  handlers: Handlers;
}

/** Wires settings into a store, an authenticator and the handlers; creates the tables. */
export async function createCoordinator(
  settings: CoordinatorSettings,
  opts: {
    clock?: Clock;
    retry?: RetryOptions;
    fetchImpl?: typeof fetch;
    identityResolver?: ManagedIdentityResolver;
  } = {},
): Promise<Coordinator> {
  const clock = opts.clock ?? systemClock;
  const store = openStore(settings, clock);
  await store.init();
  const deps: HandlerDeps = {
    store,
    authenticator: createAuthenticator(settings, {
      ...(opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}),
      ...identityResolverFor(settings, opts.identityResolver),
    }),
    settings,
    clock,
    ...(opts.retry ? { retry: opts.retry } : {}),
  };
  return { deps, handlers: createHandlers(deps) };
}

/**
 * Entra mode: relay tokens for our own app carry no xms_mirid / xms_az_rid, so the relay's VM is
 * looked up in Microsoft Graph with the app's own managed identity (docs/auth.md).
 */
function identityResolverFor(
  settings: CoordinatorSettings,
  given: ManagedIdentityResolver | undefined,
): { identityResolver?: ManagedIdentityResolver } {
  if (given) return { identityResolver: given };
  if (settings.QUIESCE_AUTH_MODE !== "entra") return {};
  const clientId = settings.QUIESCE_STORAGE_CLIENT_ID;
  return {
    identityResolver: createGraphIdentityResolver({
      credential: new ManagedIdentityCredential(clientId ? { clientId } : undefined),
      graphUrl: settings.QUIESCE_GRAPH_URL,
    }),
  };
}
