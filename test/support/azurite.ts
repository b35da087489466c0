import {
  type AzuriteHandle,
  type AzuriteOptions,
  startAzurite,
} from "../../functions/src/local/azurite";

/**
 * Azurite's table service for a test suite, from node_modules, on a free port of 127.0.0.1:
 * in memory unless given a `location` (e.g. a temp dir); resolves once it answers HTTP.
 * Call stop() in afterAll.
 */
export function startTestAzurite(opts: AzuriteOptions = {}): Promise<AzuriteHandle> {
  return startAzurite(opts);
}

export { type AzuriteHandle, type AzuriteOptions, startAzurite };
