import { afterEach, describe, expect, it } from "vitest";
import { FabricControlClient } from "../control/client";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { Topology, type TopologyInput } from "../topology/topology";
import { getScheduledEvents } from "./probe";

/**
 * What a group's `scheduledEventsPolicy` changes on the VMs (a user's Reboot / Redeploy approved
 * as it is created), and VMs declared without a relay: IMDS serves them, and the list of VMs to
 * start relays on leaves them out.
 */

let sim: FabricSimulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

const TOPOLOGY: TopologyInput = {
  groups: [
    {
      kind: "availabilitySet",
      name: "avset-web",
      vms: ["web-0", { name: "web-1", relay: false }],
      scheduledEventsPolicy: { userInitiatedReboot: { automaticallyApprove: true } },
    },
    {
      kind: "scaleSetPlacementGroup",
      name: "pg",
      scaleSetName: "ss",
      vms: ["ss_0", { name: "ss_1", relay: true }],
      relays: false,
      scheduledEventsPolicy: {
        scheduledEventsAdditionalPublishingTargets: { eventGridAndResourceGraph: { enable: true } },
        userInitiatedRedeploy: { automaticallyApprove: true },
      },
    },
    { kind: "standalone", vms: ["solo"] },
  ],
};

describe("scheduledEventsPolicy in the topology", () => {
  it("is spelled out per group; absent, the group has none; both spellings of Event Grid at once are refused", async () => {
    sim = await startFabricSimulator({ clock: new ManualClock(), topology: TOPOLOGY });
    const groups = (await new FabricControlClient(sim.url).topology()).groups;
    expect(Object.fromEntries(groups.map((g) => [g.name, g.scheduledEventsPolicy]))).toEqual({
      "avset-web": {
        eventGridAndResourceGraph: false,
        userInitiatedReboot: { automaticallyApprove: true },
        userInitiatedRedeploy: { automaticallyApprove: false },
      },
      pg: {
        eventGridAndResourceGraph: true,
        userInitiatedReboot: { automaticallyApprove: false },
        userInitiatedRedeploy: { automaticallyApprove: true },
      },
      solo: undefined,
    });
    const both = Topology.safeParse({
      groups: [
        {
          kind: "standalone",
          vms: ["x"],
          scheduledEventsPolicy: {
            eventGridAndResourceGraph: true,
            scheduledEventsAdditionalPublishingTargets: {
              eventGridAndResourceGraph: { enable: false },
            },
          },
        },
      ],
    });
    expect(both.success).toBe(false);
  });

  it("auto-approve: a user's Reboot appears Started at once (cause autoApproved); platform and other events stay Scheduled", async () => {
    sim = await startFabricSimulator({ clock: new ManualClock(), topology: TOPOLOGY });
    const s = sim;
    const user = s.schedule({ eventType: "Reboot", eventSource: "User", resources: ["web-0"] });
    const platform = s.schedule({ eventType: "Reboot", resources: ["web-1"] });
    const redeploy = s.schedule({ eventType: "Redeploy", eventSource: "User", group: "avset-web" });
    const ssRedeploy = s.schedule({ eventType: "Redeploy", eventSource: "User", group: "pg" });
    const ssReboot = s.schedule({ eventType: "Reboot", eventSource: "User", group: "pg" });
    expect(
      [user, platform, redeploy, ssRedeploy, ssReboot].map((e) => [e.phase, e.startCause]),
    ).toEqual([
      ["Started", "autoApproved"],
      ["Scheduled", undefined],
      ["Scheduled", undefined],
      ["Started", "autoApproved"],
      ["Scheduled", undefined],
    ]);
    const doc = (await getScheduledEvents(s.imdsUrl("web-1"))).body;
    expect(doc?.Events.find((e) => e.EventId === user.eventId)).toMatchObject({
      EventStatus: "Started",
      NotBefore: "",
      EventSource: "User",
    });
    const statuses = s
      .timeline()
      .entries.flatMap((e) => (e.kind === "document" ? e.document.Events : []))
      .filter((e) => e.EventId === user.eventId)
      .map((e) => e.EventStatus);
    expect(new Set(statuses)).toEqual(new Set(["Started"]));
  });
});

describe("VMs without relays", () => {
  it("are served by IMDS, listed with relay: false, and left out of relayVmNames", async () => {
    sim = await startFabricSimulator({ clock: new ManualClock(), topology: TOPOLOGY });
    const s = sim;
    s.schedule({ eventType: "Freeze", group: "pg" });
    for (const vm of ["web-1", "ss_0"]) {
      const answer = await getScheduledEvents(s.imdsUrl(vm));
      expect(answer.status).toBe(200);
    }
    expect((await getScheduledEvents(s.imdsUrl("ss_0"))).body?.Events).toHaveLength(1);
    expect(s.relayVmNames()).toEqual(["web-0", "ss_1", "solo"]);
    expect(s.vmNames()).toEqual(["web-0", "web-1", "ss_0", "ss_1", "solo"]);
    const vms = (await new FabricControlClient(s.url).topology()).vms;
    expect(vms.filter((v) => !v.relay).map((v) => v.name)).toEqual(["web-1", "ss_0"]);
  });
});
