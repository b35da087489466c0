import { describe, expect, it } from "vitest";
import type { PipelineDeps } from "../pipeline/deps";
import { createBackstop } from "./backstop";
import type { PublishedIntake } from "./intake";
import type { OwnerIndexCache } from "./ownerIndexCache";

/**
 * Which subscriptions the Resource Graph backstop queries in one request's `subscriptions` list
 * (Resource Graph's QueryRequest, azure-rest-api-specs resourcegraph 2022-10-01): the operator's
 * QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS when set; else the clusters' subscriptions and every one
 * the deployment serves (QUIESCE_SUBSCRIPTIONS), each once.
 */
const A = "00000000-0000-0000-0000-0000000000aa";
const B = "00000000-0000-0000-0000-0000000000bb";
const C = "00000000-0000-0000-0000-0000000000cc";

async function queried(options: { resourceGraphSubscriptions: string[]; subscriptions: string[] }) {
  const asked: (readonly string[])[] = [];
  const deps = {
    clock: { now: () => 0 },
    options: {
      controlPlaneEvents: { enabled: true, resourceGraphIntervalMs: 300_000, ...options },
    },
    controlPlane: {
      scheduledEvents: async (subs: readonly string[]) => {
        asked.push(subs);
        return { ok: true, value: { observations: [], pages: 1 } };
      },
    },
    store: { eventClusters: async () => new Map() },
  } as unknown as PipelineDeps;
  const owners = { subscriptions: async () => [A, B.toUpperCase()] } as unknown as OwnerIndexCache;
  const intake = (async () => ({ applied: 0 })) as unknown as PublishedIntake;
  await createBackstop(deps, owners, intake)();
  return asked;
}

describe("the backstop's subscriptions", () => {
  it("are the clusters' and every one the deployment serves, each once", async () => {
    expect(await queried({ resourceGraphSubscriptions: [], subscriptions: [B, C] })).toEqual([
      [A, B.toUpperCase(), C],
    ]);
  });

  it("are the operator's list alone when given", async () => {
    expect(await queried({ resourceGraphSubscriptions: [C], subscriptions: [A, B, C] })).toEqual([
      [C],
    ]);
  });
});
