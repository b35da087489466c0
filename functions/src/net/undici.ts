import type { Agent, Dispatcher } from "undici";

/**
 * undici, loaded on the first outbound call (ARM, an HTTP gate, a notification, an AIA fetch)
 * rather than when the host loads app.js: a report on the coordinator's usual path makes none,
 * and the library is a fifth of the package's start-up. The package builds the import into its
 * own file (scripts/package/lazyChunks.mjs).
 */

const importUndici = () => import("undici");
type Undici = Awaited<ReturnType<typeof importUndici>>;
let loading: Promise<Undici> | undefined;

function loadUndici(): Promise<Undici> {
  loading ??= importUndici().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/** A pooled Agent made on its first request, with undici: see `pooledAgent`. */
export class LazyAgent {
  private agent: Agent | undefined;
  constructor(private readonly options: Agent.Options) {}

  /** The Agent, made now if this is the first request through it. */
  made(undici: Undici): Agent {
    this.agent ??= new undici.Agent(this.options);
    return this.agent;
  }

  /** Closes the Agent, if one was made. */
  async close(): Promise<void> {
    await this.agent?.close();
  }
}

/** What a request goes through: an undici Dispatcher (a test's MockAgent, say) or a LazyAgent. */
export type HttpDispatcher = Dispatcher | LazyAgent;

/** A keep-alive Agent with these options, made (and undici loaded) on its first request. */
export function pooledAgent(options: Agent.Options): LazyAgent {
  return new LazyAgent(options);
}

type RequestOptions = Omit<NonNullable<Parameters<Undici["request"]>[1]>, "dispatcher"> & {
  dispatcher?: HttpDispatcher;
};

/** undici's `request`, loading undici first and making a LazyAgent's Agent. */
export async function request(url: string | URL, options: RequestOptions) {
  const undici = await loadUndici();
  const { dispatcher, ...rest } = options;
  return undici.request(url, {
    ...rest,
    ...(dispatcher === undefined
      ? {}
      : { dispatcher: dispatcher instanceof LazyAgent ? dispatcher.made(undici) : dispatcher }),
  });
}
