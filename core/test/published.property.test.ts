import type { PublishedEventStatus, PublishedObservation } from "@quiesce/protocol/published";
import type { RelayReport } from "@quiesce/protocol/relay";
import { published, report, scheduled, started, T0 } from "@quiesce/testkit/documents";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPublished, applyReport, type ClusterState, emptyClusterState } from "../src";
import { PUBLISHED_RANK } from "../src/model/publishedView";
import { policy } from "./fixtures";

/**
 * The published view is a join-semilattice (core/src/rounds/published.ts): whatever the order and
 * repetition of one set of Event Grid / Resource Graph deliveries, and wherever they fall among
 * relays' reports, the stored event is the same. Only the fields that say when and from whom the
 * coordinator learned (firstSeenBy; with a moving clock, the times) depend on arrival.
 */
const ID = "9F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B";
const KEY = ID.toLowerCase();
const p = policy();

interface Delivery {
  status: PublishedEventStatus;
  /** NotBefore, minutes after T0 (always ahead of the clock: expiry is the clock's, not the order's). */
  notBeforeMin: number;
  observedAt: number | null;
  source: PublishedObservation["source"];
  resources: string[];
  eventSource: string | null;
  description: string | null;
  duration: number | null;
}

const STATUSES = ["Scheduled", "Started", "Completed", "Canceled"] as const;

const delivery = (statuses: readonly PublishedEventStatus[], heads: boolean) =>
  fc.record<Delivery>({
    status: fc.constantFrom(...statuses),
    notBeforeMin: fc.integer({ min: 10, max: 40 }),
    observedAt: fc.option(
      fc.integer({ min: 0, max: 3 }).map((i) => T0 - 60_000 + i * 1000),
      { nil: null },
    ),
    source: fc.constantFrom("eventGrid", "resourceGraph"),
    resources: fc.subarray(
      heads ? ["web-0", "web-1", "WEB-1", "web-2"] : ["web-0", "web-1", "web-2"],
    ),
    // Azure does not change these during an event's life, but a delivery may leave one out;
    // with `heads`, deliveries even disagree (the join still picks one deterministically).
    eventSource: heads
      ? fc.constantFrom(null, "Platform", "User")
      : fc.constantFrom(null, "Platform"),
    description: heads
      ? fc.constantFrom(null, "Host update", "Host OS update")
      : fc.constantFrom(null, "Host server is undergoing maintenance."),
    duration: heads ? fc.constantFrom(null, 5, 10) : fc.constantFrom(null, 5),
  });

function observation(d: Delivery): PublishedObservation {
  const o = published(d.status, d.resources, {
    eventId: ID,
    observedAt: d.observedAt ?? undefined,
    notBefore: new Date(T0 + d.notBeforeMin * 60_000).toUTCString(),
  });
  const { EventSource, Description, DurationInSeconds, ...event } = o.event;
  return {
    ...o,
    observedAt: d.observedAt,
    source: d.source,
    event: {
      ...event,
      ...(d.eventSource !== null ? { EventSource: d.eventSource } : {}),
      ...(d.description !== null ? { Description: d.description } : {}),
      ...(d.duration !== null ? { DurationInSeconds: d.duration } : {}),
    },
  };
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) =>
    permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]),
  );
}

/** Inserts copies of some items (at least once delivery: duplicates anywhere). */
function withDuplicates<T>(order: readonly T[], copies: readonly [number, number][]): T[] {
  const out = [...order];
  for (const [which, where] of copies)
    out.splice(where % (out.length + 1), 0, order[which % order.length] as T);
  return out;
}

type Step = { kind: "published"; obs: PublishedObservation } | { kind: "report"; r: RelayReport };

/**
 * What a delivery may never do, checked after each one: remove a VM from Resources, roll a status
 * back, revive an ended event, or touch what relays report (readiness, members).
 */
function onlyAdds(before: ClusterState, after: ClusterState) {
  const [b, a] = [before.events[KEY], after.events[KEY]];
  expect(after.readiness).toBe(before.readiness);
  expect(after.members).toBe(before.members);
  if (!b || !a) return;
  const names = (e: typeof a) => e.resources.map((n) => n.toLowerCase());
  expect(names(a)).toEqual(expect.arrayContaining(names(b)));
  if (b.status === "Started") expect(a.status).toBe("Started");
  if (b.published && a.published)
    expect(PUBLISHED_RANK[a.published.status]).toBeGreaterThanOrEqual(
      PUBLISHED_RANK[b.published.status],
    );
  if (b.leftAt !== null) expect(a.leftAt).toBe(b.leftAt);
}

/** Applies the steps; `instant`: all at one time, else one second apart. */
function apply(steps: readonly Step[], instant: boolean, start?: ClusterState): ClusterState {
  let state = start ?? emptyClusterState("web");
  steps.forEach((s, i) => {
    const now = instant ? T0 : T0 + i * 1000;
    const before = state;
    state =
      s.kind === "published"
        ? applyPublished(state, s.obs, now, p).state
        : applyReport(state, s.r, now, p).state;
    if (s.kind === "published") onlyAdds(before, state);
  });
  return state;
}

/** Who told the coordinator first, and, with a moving clock, when it learned: arrival, not knowledge. */
function knowledge(state: ClusterState, opts: { times: boolean; resourcesAsSet: boolean }) {
  const e = state.events[KEY];
  if (!e) return state;
  const { firstSeenBy, ...rest } = e;
  let out: Record<string, unknown> = rest;
  if (opts.resourcesAsSet) out = { ...out, resources: [...e.resources].sort() };
  if (opts.times) {
    const {
      firstSeenAt,
      phaseSince,
      startedAt,
      leftAt,
      endedAt,
      published: view,
      ...r
    } = out as typeof rest;
    const { receivedAt, ...pv } = view ?? { receivedAt: 0 };
    out = {
      ...r,
      started: startedAt !== null,
      left: leftAt !== null,
      ended: endedAt !== null,
      published: view ? pv : undefined,
    };
  }
  return { ...state, events: { ...state.events, [KEY]: out } };
}

const copies = fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 });

describe("published deliveries converge whatever their order and repetition", () => {
  it("every permutation, with duplicates, of a set of deliveries stores the same event", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.array(delivery(STATUSES, true), { minLength: 1, maxLength: 4 }),
        copies,
        fc.boolean(),
        (set, dup, instant) => {
          const obs = set.map(observation);
          const orders = permutations(obs.map((_, i) => i));
          const outcomes = orders
            .flatMap((order) => [order, withDuplicates(order, dup)])
            .map((order) =>
              knowledge(
                apply(
                  order.map((i) => ({ kind: "published", obs: obs[i] as PublishedObservation })),
                  instant,
                ),
                { times: !instant, resourcesAsSet: false },
              ),
            );
          for (const o of outcomes) expect(o).toEqual(outcomes[0]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("converges wherever the deliveries fall among one relay group's reports", {
    timeout: 120_000,
  }, () => {
    // Relays' documents come in their own order (incarnation by incarnation, Scheduled then
    // Started); the published deliveries, in any order and repetition, anywhere among them. A
    // terminal delivery ends the event, after which a relay's document is late by definition
    // (observe.ts), so only Scheduled and Started are delivered here.
    const relayDoc = fc.record({
      vm: fc.constantFrom("web-0", "web-1"),
      resources: fc.subarray(["web-0", "web-1", "web-2"], { minLength: 1 }),
      notBeforeMin: fc.integer({ min: 10, max: 40 }),
    });
    fc.assert(
      fc.property(
        fc.array(relayDoc, { minLength: 1, maxLength: 4 }),
        fc.nat(4),
        fc.array(delivery(["Scheduled", "Started"], false), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 2, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 2, maxLength: 6 }),
        (docs, startedFrom, set, mixA, mixB) => {
          const registered = apply(
            ["web-0", "web-1"].map((vm) => ({ kind: "report", r: report(vm, 1, []) })),
            true,
          );
          const relays: Step[] = docs.map((d, i) => {
            const ev = scheduled(ID, d.resources, {
              NotBefore: new Date(T0 + d.notBeforeMin * 60_000).toUTCString(),
            });
            return {
              kind: "report",
              r: report(d.vm, i + 2, [i >= startedFrom ? started(ev) : ev]),
            };
          });
          const deliveries: Step[] = set.map((d) => ({ kind: "published", obs: observation(d) }));
          // A random order of the deliveries (each at least once, some twice), merged into the reports.
          const mix = (m: readonly [number, number][]) => {
            const order = [...deliveries];
            for (const [x, y] of m) {
              const i = x % order.length;
              const j = y % order.length;
              [order[i], order[j]] = [order[j] as Step, order[i] as Step];
            }
            const out = [...relays];
            withDuplicates(order, m.slice(0, 2)).forEach((s, k) => {
              out.splice(((m[k % m.length]?.[1] ?? 0) + k) % (out.length + 1), 0, s);
            });
            return out;
          };
          const a = knowledge(apply(mix(mixA), true, registered), {
            times: false,
            resourcesAsSet: true,
          });
          const b = knowledge(apply(mix(mixB), true, registered), {
            times: false,
            resourcesAsSet: true,
          });
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 200 },
    );
  });
});
