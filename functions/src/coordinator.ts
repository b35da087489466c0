import { createAuthenticator } from "./auth";
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
  opts: { clock?: Clock; retry?: RetryOptions; fetchImpl?: typeof fetch } = {},
): Promise<Coordinator> {
  const store = openStore(settings);
  await store.init();
  const deps: HandlerDeps = {
    store,
    authenticator: createAuthenticator(
      settings,
      opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {},
    ),
    settings,
    clock: opts.clock ?? systemClock,
    ...(opts.retry ? { retry: opts.retry } : {}),
  };
  return { deps, handlers: createHandlers(deps) };
}
