import { applyPublished, type ClusterState, emptyClusterState } from "@quiesce/core";
import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import type { PublishedEventStatus, PublishedObservation } from "@quiesce/protocol/published";
import { published, T0 } from "@quiesce/testkit/documents";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decisionEffects } from "../effects/derive";
import { eventNotifications, type Notification } from "../notify/due";

/**
 * The notifications of published deliveries (Event Grid, Resource Graph) do not depend on the
 * order they arrive in: the ones the stored event justifies (what the sweep derives) are the same
 * for every order and repetition, and the ones the intake sends as each delivery commits (derive.ts,
 * as an operator round) are those, plus, only when a Started or Completed came before any
 * Scheduled, the `unplanned` alert that was true until the Scheduled arrived: a notification
 * already sent cannot be taken back, and holding a critical alert back for a delivery that may
 * never come would delay every real one.
 */
const ID = "9F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B";
const KEY = ID.toLowerCase();
const p = DEFAULT_POLICY;

interface Delivery {
  status: PublishedEventStatus;
  notBeforeMin: number;
  observedAt: number | null;
  source: PublishedObservation["source"];
  resources: string[];
  eventSource: string | null;
}

const delivery = (statuses: readonly PublishedEventStatus[], sources: readonly string[]) =>
  fc.record<Delivery>({
    status: fc.constantFrom(...statuses),
    notBeforeMin: fc.integer({ min: 10, max: 40 }),
    observedAt: fc.option(
      fc.integer({ min: 0, max: 3 }).map((i) => T0 - 60_000 + i * 1000),
      {
        nil: null,
      },
    ),
    source: fc.constantFrom("eventGrid", "resourceGraph"),
    // Never empty: VMs no relay reported block approval (unmanagedVms), so no approval is decided
    // between two deliveries. One would be an action the coordinator took on what it knew then.
    resources: fc.subarray(["web-0", "web-1", "web-2"], { minLength: 1 }),
    eventSource: fc.constantFrom(null, ...sources),
  });

function observation(d: Delivery): PublishedObservation {
  const o = published(d.status, d.resources, {
    eventId: ID,
    notBefore: new Date(T0 + d.notBeforeMin * 60_000).toUTCString(),
  });
  const { EventSource, ...event } = o.event;
  return {
    ...o,
    source: d.source,
    observedAt: d.observedAt,
    event: { ...event, ...(d.eventSource !== null ? { EventSource: d.eventSource } : {}) },
  };
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) =>
    permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]),
  );
}

function orders(n: number, copies: readonly [number, number][]): number[][] {
  return permutations([...Array(n).keys()]).flatMap((order) => {
    const dup = [...order];
    for (const [which, where] of copies) dup.splice(where % (dup.length + 1), 0, which % n);
    return [order, dup];
  });
}

/** Each delivery decided and committed on its own (the worst case: one per invocation), at one instant. */
function deliver(obs: readonly PublishedObservation[]) {
  let state: ClusterState = emptyClusterState("web");
  const sent: Notification[] = [];
  for (const o of obs) {
    const d = applyPublished(state, o, T0, p);
    if (d.state !== state)
      sent.push(
        ...decisionEffects(state, d, { kind: "change", input: "published" }, T0, p).notifications,
      );
    state = d.state;
  }
  return { state, sent };
}

/** A notification's content; `text` left out: it names the channel that told the coordinator first. */
const content = ({ text, ...n }: Notification) => n;
const justified = (state: ClusterState) => {
  const e = state.events[KEY];
  return e ? eventNotifications(state, e, T0, p, { withBlocked: true }).map(content) : [];
};
const kinds = (ns: readonly Pick<Notification, "kind" | "severity">[]) =>
  [...new Set(ns.map((n) => `${n.kind}:${n.severity}`))].sort();

const copies = fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 });

describe("notifications of published deliveries", () => {
  it("the stored event justifies the same notifications whatever the order and repetition", {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.array(
          delivery(["Scheduled", "Started", "Completed", "Canceled"], ["Platform", "User"]),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        copies,
        (set, dup) => {
          const obs = set.map(observation);
          const outcomes = orders(obs.length, dup).map((order) =>
            justified(deliver(order.map((i) => obs[i] as PublishedObservation)).state),
          );
          for (const o of outcomes) expect(o).toEqual(outcomes[0]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("sends, for every order of a history Azure can publish, what the stored event justifies (and unplanned only while no Scheduled had come)", {
    timeout: 120_000,
  }, () => {
    // One event's history: announced and cancelled, or (announced or not) started and completed.
    const history = fc.oneof(
      fc.array(delivery(["Scheduled", "Canceled"], ["Platform"]), { minLength: 1, maxLength: 4 }),
      fc.array(delivery(["Scheduled", "Started", "Completed"], ["Platform"]), {
        minLength: 1,
        maxLength: 4,
      }),
    );
    fc.assert(
      fc.property(history, copies, (set, dup) => {
        const obs = set.map(observation);
        for (const order of orders(obs.length, dup)) {
          const { state, sent } = deliver(order.map((i) => obs[i] as PublishedObservation));
          const statuses = order.map((i) => (set[i] as Delivery).status);
          const firstAnnounced = statuses.findIndex((s) => s === "Scheduled" || s === "Canceled");
          const firstRan = statuses.findIndex((s) => s === "Started" || s === "Completed");
          const alertedEarly =
            firstRan >= 0 && firstAnnounced > firstRan ? ["unplanned:critical"] : [];
          expect(kinds(sent)).toEqual([...kinds(justified(state)), ...alertedEarly].sort());
        }
      }),
      { numRuns: 100 },
    );
  });
});
