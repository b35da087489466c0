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
 * One Azurite for a test file: started before its tests, stopped after. Returns a getter, since
 * the handle exists only once beforeAll has run.
 */
export function useAzurite(opts: AzuriteOptions = {}): () => AzuriteHandle {
  let azurite: AzuriteHandle | undefined;
  beforeAll(async () => {
    azurite = await startTestAzurite(opts);
  });
  afterAll(async () => {
    await azurite?.stop();
  });
  return () => {
    if (!azurite)
      throw new Error("Azurite is not started: call useAzurite() at the top of the file");
    return azurite;
  };
}
