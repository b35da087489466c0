import { describe, expect, it } from "vitest";
import { type Harness, scheduled, useHarness } from "./support/harness";
import { waitFor } from "./support/wait";

/**
 * The relay's shell with maintenance windows: a drain the coordinator defers waits for the hold
 * to run out on the relay's clock (a controlled clock here, so nothing sleeps), and in a cluster
 * with windows a new event's drain waits for the answer to the report that carried it.
 */
describe("relay: maintenance-window holds against a coordinator stand-in", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });

  it("holds a deferred drain until the hold runs out on its clock, then drains", async () => {
    let now = Date.now();
    const clock = { now: () => now };
    h.coordinator.standing = [{ kind: "defer", eventIds: [], untilSeconds: 0 }];
    await h.start({}, { clock });
    await waitFor("the first answer", () => h.coordinator.reports.length >= 1);
    await h.morePolls(2);
    h.coordinator.standing = [{ kind: "defer", eventIds: ["W-1"], untilSeconds: 300 }];
    h.imds.setEvents([scheduled("W-1", ["vm-0"])]);
    await waitFor("the report of W-1", () =>
      h.coordinator.reports.some((r) => r.document?.Events.some((e) => e.EventId === "W-1")),
    );
    await h.morePolls(3);
    now += 10_000; // past the wait for a first answer: the defer directive alone holds it
    await h.morePolls(3);
    expect(await h.hooks()).toEqual([]);
    // The coordinator goes silent; five minutes later (its clock) the hold has run out.
    h.coordinator.down = true;
    now += 301_000;
    await waitFor("the drain", async () => (await h.hooks()).includes("drain W-1 1"));
  });

  it("in a cluster with windows, a new event's drain awaits the answer to its report, for a few seconds at most", async () => {
    let now = Date.now();
    const clock = { now: () => now };
    h.coordinator.standing = [{ kind: "defer", eventIds: [], untilSeconds: 0 }];
    await h.start({}, { clock });
    await waitFor("the first answer", () => h.coordinator.reports.length >= 1);
    await h.morePolls(2);
    h.coordinator.down = true; // no answer will come
    h.imds.setEvents([scheduled("W-2", ["vm-0"])]);
    await h.morePolls(3);
    expect(await h.hooks()).toEqual([]);
    now += 5_000; // ANSWER_WAIT_MS
    await waitFor("the drain", async () => (await h.hooks()).includes("drain W-2 1"));
  });
});
