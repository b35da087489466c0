import { type AzuriteHandle, startAzurite } from "../../functions/src/local/azurite";

/**
 * Azurite's table service for a test suite: in memory, on a free port of 127.0.0.1, answering
 * before this resolves. Call stop() in afterAll.
 */
export function startTestAzurite(): Promise<AzuriteHandle> {
  return startAzurite();
}

export type { AzuriteHandle };
