import { waitFor } from "@quiesce/testkit/wait";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabricControlClient } from "../control/client";
import { ManualClock } from "../engine/clock";
import { approve } from "../imds/probe";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import {
  observedNotifications as observed,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhookReceiver";

/**
 * Event Grid as it misbehaves, on demand: duplicates with the same id, two deliveries swapped,
 * deliveries that never arrive, pauses; and as it treats a webhook's errors (400 never retried,
 * 503 retried with backoff). Every delivery is a Scheduled and then a Started of one event.
 */

const PUBLISHING_TOPOLOGY = {
  groups: [
    {
      kind: "availabilitySet" as const,
      name: "avset-web",
      vms: ["web-0", "web-1"],
      scheduledEventsPolicy: { eventGridAndResourceGraph: true },
    },
  ],
};

let sim: FabricSimulator;
let r: WebhookReceiver;

beforeEach(async () => {
  sim = await startFabricSimulator({ clock: new ManualClock(), topology: PUBLISHING_TOPOLOGY });
  r = await startWebhookReceiver();
});
afterEach(async () => {
  await sim.stop();
  await r.close();
});

/** A subscription past its handshake, and a Reboot of web-0 Scheduled then Started. */
async function subscribed(faults?: { duplicate?: number; drop?: number; reorder?: number }) {
  const sub = sim.eventGrid.subscribe({ endpointUrl: r.url, retryDelaysMs: [5] });
  await sub.settled();
  if (faults) sub.injectFaults(faults);
  return sub;
}
async function scheduleAndStart(): Promise<string> {
  const e = sim.schedule({ eventType: "Reboot", group: "avset-web", resources: ["web-0"] });
  expect(await approve(sim.imdsUrl("web-1"), e.eventId)).toBe(200);
  return e.eventId;
}

describe("delivery faults", () => {
  it("duplicate: the copy arrives right after the original, with the same id and body", async () => {
    const sub = await subscribed({ duplicate: 1 });
    await scheduleAndStart();
    const view = await sub.settled();
    const seen = observed(r);
    expect(seen.map((n) => n.status)).toEqual(["Scheduled", "Scheduled", "Started"]);
    expect(seen[0]?.id).toBe(seen[1]?.id);
    expect(seen[2]?.id).not.toBe(seen[0]?.id);
    const [a, b] = r.notifications();
    expect(b?.body).toEqual(a?.body);
    expect(view.counters).toMatchObject({ delivered: 3, duplicated: 1 });
    expect(sub.deliveries().map((d) => d.duplicate)).toEqual([false, true, false]);
  });

  it("reorder: the held delivery arrives after the one that followed it", async () => {
    const sub = await subscribed({ reorder: 1 });
    const eventId = await scheduleAndStart();
    await sub.settled();
    expect(observed(r).map((n) => [n.eventId, n.status])).toEqual([
      [eventId, "Started"],
      [eventId, "Scheduled"],
    ]);
  });

  it("reorder keeps the held one back, unsettled, until another delivery goes", async () => {
    const sub = await subscribed({ reorder: 1 });
    sim.schedule({ eventType: "Freeze", group: "avset-web" });
    expect(sub.view()).toMatchObject({ waiting: 1, settled: false });
    expect(sub.deliveries().map((d) => d.outcome)).toEqual(["held"]);
  });

  it("drop: the next N deliveries never arrive and count as dropped", async () => {
    const sub = await subscribed({ drop: 1 });
    const eventId = await scheduleAndStart();
    const view = await sub.settled();
    expect(observed(r).map((n) => [n.eventId, n.status])).toEqual([[eventId, "Started"]]);
    expect(view.counters).toMatchObject({ delivered: 1, dropped: 1, refused: 0 });
    expect(sub.deliveries().map((d) => [d.eventStatus, d.outcome])).toEqual([
      ["Scheduled", "dropped"],
      ["Started", "delivered"],
    ]);
  });

  it("pause queues every delivery until resume, then they go in order (over the control API)", async () => {
    const control = new FabricControlClient(sim.url);
    const { name } = await control.eventGridSubscribe({ endpointUrl: r.url });
    await control.eventGridSettled(name);
    expect((await control.eventGridPause(name)).paused).toBe(true);
    const eventId = await scheduleAndStart();
    expect(await control.eventGridSubscription(name)).toMatchObject({ waiting: 2, settled: false });
    expect(r.notifications()).toEqual([]);
    await control.eventGridResume(name);
    await control.eventGridSettled(name);
    expect(observed(r).map((n) => [n.eventId, n.status])).toEqual([
      [eventId, "Scheduled"],
      [eventId, "Started"],
    ]);
    const faults = await control.eventGridFaults(name, { drop: 2, duplicate: 1 });
    expect(faults.faults).toEqual({ drop: 2, duplicate: 1, reorder: 0 });
    expect((await control.eventGridDeliveries(name)).map((d) => d.outcome)).toEqual([
      "delivered",
      "delivered",
    ]);
    await expect(control.eventGridFaults(name, {})).rejects.toMatchObject({ status: 400 });
    await expect(control.eventGridSubscription("nope")).rejects.toMatchObject({ status: 404 });
  });
});

describe("the webhook's errors", () => {
  it("400 is never retried (refused, dropped); 503 is retried until it is taken", async () => {
    const sub = await subscribed();
    r.respondNext(400, 503, 503);
    const eventId = await scheduleAndStart();
    const view = await sub.settled();
    const seen = observed(r);
    expect(seen.map((n) => [n.status, n.deliveryCount])).toEqual([
      ["Scheduled", "0"],
      ["Started", "0"],
      ["Started", "1"],
      ["Started", "2"],
    ]);
    expect(new Set(seen.slice(1).map((n) => n.id)).size).toBe(1);
    expect(r.notifications().map((n) => n.status)).toEqual([400, 503, 503, 200]);
    expect(view.counters).toEqual({
      delivered: 1,
      duplicated: 0,
      dropped: 1,
      refused: 1,
      retried: 2,
    });
    expect(sub.deliveries()).toMatchObject([
      { eventId, outcome: "refused", answers: [400] },
      { eventId, outcome: "delivered", answers: [503, 503, 200] },
    ]);
  });

  it("401, 403 and 413 are refused too; 408, 429 and 500 retried; out of attempts, dropped", async () => {
    const sub = sim.eventGrid.subscribe({
      endpointUrl: r.url,
      retryDelaysMs: [1],
      maxDeliveryAttempts: 2,
    });
    await sub.settled();
    // One event at a time, so each answer goes to the delivery meant (a retry goes to the back).
    for (const answers of [[401], [403], [413], [408, 200], [429, 500]]) {
      r.respondNext(...answers);
      sim.schedule({ eventType: "Freeze", group: "avset-web" });
      await sub.settled();
    }
    const view = sub.view();
    expect(sub.deliveries().map((d) => [d.outcome, d.answers])).toEqual([
      ["refused", [401]],
      ["refused", [403]],
      ["refused", [413]],
      ["delivered", [408, 200]],
      ["expired", [429, 500]],
    ]);
    expect(view.counters).toMatchObject({ delivered: 1, refused: 3, dropped: 4, retried: 2 });
  });

  it("stop leaves no retry timer and no request behind", async () => {
    const sub = sim.eventGrid.subscribe({ endpointUrl: r.url, retryDelaysMs: [3_600_000] });
    await sub.settled();
    r.respondNext(503);
    sim.schedule({ eventType: "Freeze", group: "avset-web" });
    await waitFor("the first attempt answered", () => sub.view().counters.retried === 1);
    const timers = () => process.getActiveResourcesInfo().filter((t) => t === "Timeout").length;
    const before = timers();
    expect(sim.eventGrid.unsubscribe(sub.name)).toMatchObject({ settled: true });
    expect(timers()).toBe(before - 1);
    expect(sim.eventGrid.subscriptions()).toEqual([]);
    expect(r.notifications()).toHaveLength(1);
  });
});
