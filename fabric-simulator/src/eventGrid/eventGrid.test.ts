import { parseEventGridDelivery } from "@quiesce/protocol/published";
import { waitFor } from "@quiesce/testkit/wait";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabricControlClient } from "../control/client";
import { ManualClock } from "../engine/clock";
import { approve } from "../imds/probe";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import type { TopologyInput } from "../topology/topology";
import {
  observedNotifications as observed,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhookReceiver";

/**
 * The Event Grid publisher against a real loopback webhook: the validation handshake comes first
 * and gates every delivery, and each change of an opted-in group's events arrives as the product's
 * own parser reads Event Grid deliveries.
 */

const PUBLISHING_TOPOLOGY: TopologyInput = {
  groups: [
    {
      kind: "availabilitySet",
      name: "avset-web",
      vms: ["web-0", "web-1"],
      scheduledEventsPolicy: { eventGridAndResourceGraph: true },
    },
    { kind: "availabilitySet", name: "avset-quiet", vms: ["quiet-0"] },
    {
      kind: "scaleSetPlacementGroup",
      name: "pg",
      scaleSetName: "ss",
      vms: 2,
      scheduledEventsPolicy: {
        scheduledEventsAdditionalPublishingTargets: { eventGridAndResourceGraph: { enable: true } },
        userInitiatedReboot: { automaticallyApprove: true },
      },
    },
  ],
};

let clock: ManualClock;
let sim: FabricSimulator;
let receivers: WebhookReceiver[];

beforeEach(async () => {
  clock = new ManualClock();
  sim = await startFabricSimulator({ clock, topology: PUBLISHING_TOPOLOGY });
  receivers = [];
});
afterEach(async () => {
  await sim.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(o: Parameters<typeof startWebhookReceiver>[0] = {}) {
  const r = await startWebhookReceiver(o);
  receivers.push(r);
  return r;
}

describe("the validation handshake", () => {
  it("comes first, and nothing is delivered until the endpoint echoed the code", async () => {
    const r = await receiver({ holdValidation: true });
    const sub = sim.eventGrid.subscribe({ endpointUrl: r.url, name: "coordinator" });
    await waitFor("the validation event at the webhook", () => r.requests().length === 1);
    const e = sim.schedule({ eventType: "Reboot", group: "avset-web" });
    // Held back, not sent: queued, no attempt made.
    expect(sub.view()).toMatchObject({ handshake: { state: "pending" }, waiting: 1 });
    expect(sub.deliveries()).toMatchObject([
      { eventId: e.eventId, outcome: "pending", answers: [] },
    ]);
    const before = r.releaseValidation();
    await sub.settled();

    const [validation] = r.requests();
    expect(validation).toMatchObject({ seq: 1, eventType: "SubscriptionValidation" });
    expect(validation?.headers["aeg-subscription-name"]).toBe("COORDINATOR");
    const parsed = parseEventGridDelivery(validation?.body);
    expect(parsed.ok && parsed.value).toEqual({
      kind: "validation",
      validationCode: sub.handshake.validationCode,
      validationUrl: sub.handshake.validationUrl,
    });
    expect(sub.handshake).toMatchObject({ state: "succeeded", validatedBy: "validationResponse" });
    expect(before).toBe(1); // the held validation was all that had arrived
    expect(observed(r).map((n) => [n.eventId, n.status, n.seq > before])).toEqual([
      [e.eventId, "Scheduled", true],
    ]);
  });

  it("refused (400) or answered with another code: the subscription fails and nothing is ever delivered", async () => {
    for (const validation of [400, "wrongCode"] as const) {
      const r = await receiver({ validation });
      const sub = sim.eventGrid.subscribe({ endpointUrl: r.url });
      await sub.settled();
      expect(sub.handshake.state).toBe("failed");
      sim.schedule({ eventType: "Freeze", group: "avset-web" });
      const view = await sub.settled();
      expect(view.counters).toMatchObject({ delivered: 0, dropped: 1 });
      expect(sub.deliveries().map((d) => d.outcome)).toEqual(["unvalidated"]);
      expect(r.requests().map((x) => x.eventType)).toEqual(["SubscriptionValidation"]);
    }
  });

  it("answered 200 without the code: it waits for a GET on validationUrl, then delivers what queued", async () => {
    const r = await receiver({ validation: "noCode" });
    const control = new FabricControlClient(sim.url);
    await control.eventGridSubscribe({ endpointUrl: r.url, name: "manual" });
    const sub = sim.eventGrid.subscription("manual");
    if (!sub) throw new Error("no subscription");
    await sub.settled();
    expect(sub.handshake.state).toBe("awaitingManualAction");
    const e = sim.schedule({ eventType: "Reboot", group: "avset-web" });
    expect(sub.view()).toMatchObject({ waiting: 1, settled: false });
    expect(sub.deliveries()).toMatchObject([{ outcome: "pending", attempts: 0 }]);
    await expect(sub.settled(1)).rejects.toThrow(/not settled/);

    const wrong = await fetch(sub.handshake.validationUrl.replace(/code=[^&]+/, "code=nope"));
    expect(wrong.status).toBe(400);
    expect((await fetch(sub.handshake.validationUrl)).status).toBe(200);
    const view = await control.eventGridSettled("manual");
    expect(view.handshake).toMatchObject({ state: "succeeded", validatedBy: "validationUrl" });
    expect(observed(r).map((n) => [n.eventId, n.status])).toEqual([[e.eventId, "Scheduled"]]);
  });
});

describe("deliveries", () => {
  it("bring an event's Scheduled, Started and Completed in order, each with its own id, and nothing of groups that did not opt in", async () => {
    const r = await receiver();
    const sub = sim.eventGrid.subscribe({ endpointUrl: r.url });
    sim.schedule({ eventType: "Reboot", group: "avset-quiet" });
    const e = sim.schedule({ eventType: "Reboot", group: "avset-web", resources: ["web-1"] });
    expect(await approve(sim.imdsUrl("web-0"), e.eventId)).toBe(200);
    sim.advance(10); // Started lasts minStartedSeconds (10)
    await sub.settled();

    const seen = observed(r);
    expect(seen.map((n) => [n.eventId, n.status, n.deliveryCount])).toEqual([
      [e.eventId, "Scheduled", "0"],
      [e.eventId, "Started", "0"],
      [e.eventId, "Completed", "0"],
    ]);
    expect(new Set(seen.map((n) => n.id)).size).toBe(3);
    expect(r.notifications().every((n) => n.headers["aeg-event-type"] === "Notification")).toBe(
      true,
    );
    const parsed = parseEventGridDelivery(r.notifications()[2]?.body);
    if (!parsed.ok || parsed.value.kind !== "events") throw new Error("not events");
    const completed = parsed.value.observations[0];
    expect(completed?.observedAt).toBe(clock.now());
    expect(completed?.scope).toMatchObject({ kind: "availabilitySets", name: "avset-web" });
    expect(sub.view().counters).toEqual({
      delivered: 3,
      duplicated: 0,
      dropped: 0,
      refused: 0,
      retried: 0,
    });
  });

  it("say Canceled for an event cancelled while Scheduled", async () => {
    const r = await receiver();
    const sub = sim.eventGrid.subscribe({ endpointUrl: r.url });
    const e = sim.schedule({ eventType: "Redeploy", group: "pg", resources: ["ss_1"] });
    sim.cancel(e.eventId);
    await sub.settled();
    expect(observed(r).map((n) => [n.eventId, n.status])).toEqual([
      [e.eventId, "Scheduled"],
      [e.eventId, "Canceled"],
    ]);
  });

  it("show a user's Reboot under an auto-approving policy Started first, never Scheduled", async () => {
    const r = await receiver();
    const sub = sim.eventGrid.subscribe({ endpointUrl: r.url });
    const e = sim.schedule({ eventType: "Reboot", eventSource: "User", resources: ["ss_0"] });
    expect(e).toMatchObject({ phase: "Started", startCause: "autoApproved", notBeforeMs: null });
    sim.advance(10);
    await sub.settled();
    expect(observed(r).map((n) => n.status)).toEqual(["Started", "Completed"]);
  });

  it("start afresh after a reset: an event of the old fabric is never published again", async () => {
    const r = await receiver();
    const sub = sim.eventGrid.subscribe({ endpointUrl: r.url });
    sim.schedule({ eventType: "Reboot", group: "avset-web" });
    sim.reset();
    const e = sim.schedule({ eventType: "Freeze", group: "avset-web" });
    await sub.settled();
    expect(observed(r).map((n) => n.status)).toEqual(["Scheduled", "Scheduled"]);
    expect(observed(r)[1]?.eventId).toBe(e.eventId);
  });
});
