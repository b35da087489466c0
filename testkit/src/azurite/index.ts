import { TableServiceClient } from "@azure/data-tables";
import { type AzuriteHandle, type AzuriteOptions, startAzurite } from "@quiesce/functions";
import { afterAll, beforeAll } from "vitest";

/**
 * Azurite's table service for a test suite, from node_modules, on a free port of 127.0.0.1:
 * in memory unless given a `location` (e.g. a temp dir); resolves once it answers HTTP.
 * Call stop() in afterAll.
 */
export function startTestAzurite(opts: AzuriteOptions = {}): Promise<AzuriteHandle> {
  return startAzurite(opts);
}

export { type AzuriteHandle, type AzuriteOptions, startAzurite };

/**
 * The test process's own in-memory Azurite, started at first use; it exits with the process
 * (startAzurite's child ends when its stdin closes). A worker that runs many files (vitest's `isolate: false`) starts one instead of one per
 * file: a start costs about a second of a core, and 35 files ask for one.
 */
let shared: Promise<AzuriteHandle> | undefined;
function processAzurite(): Promise<AzuriteHandle> {
  if (!shared) {
    shared = startTestAzurite();
    shared.catch(() => {
      shared = undefined;
    });
  }
  return shared;
}

/** Every table of an Azurite dropped: the next file starts from empty storage, as on its own. */
async function dropTables(handle: AzuriteHandle): Promise<void> {
  const service = TableServiceClient.fromConnectionString(handle.connectionString, {
    allowInsecureConnection: true,
  });
  const names: string[] = [];
  for await (const t of service.listTables()) if (t.name) names.push(t.name);
  await Promise.all(names.map((n) => service.deleteTable(n)));
}

/**
 * Empty Table Storage for a test file: before its tests, every table of the process's Azurite is
 * dropped, so the file sees what a fresh Azurite would show. With options (a folder, a port) the
 * file gets an Azurite of its own, stopped after its tests. Returns a getter, since the handle
 * exists only once beforeAll has run.
 */
export function useAzurite(opts: AzuriteOptions = {}): () => AzuriteHandle {
  const own = Object.keys(opts).length > 0;
  let azurite: AzuriteHandle | undefined;
  beforeAll(async () => {
    if (own) azurite = await startTestAzurite(opts);
    else {
      const handle = await processAzurite();
      await dropTables(handle);
      azurite = handle;
    }
  });
  afterAll(async () => {
    if (own) await azurite?.stop();
  });
  return () => {
    if (!azurite)
      throw new Error("Azurite is not started: call useAzurite() at the top of the file");
    return azurite;
  };
}
