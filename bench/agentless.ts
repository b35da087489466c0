import { startHookService, startLocalCluster } from "@quiesce/demo";
import type { FabricSimulator } from "@quiesce/fabric-simulator";
import { delay } from "@quiesce/protocol";
import { waitForPhase } from "@quiesce/testkit/cluster";
import { type Summary, summary } from "./stats";

/**
 * (m) Agentless: from an Event Grid delivery to the ARM approval of an event of VMs without a
 * relay, whose drain hooks take 1 s. The whole local system (Azurite, the coordinator with
 * QUIESCE_CONTROL_PLANE and QUIESCE_CONTROL_PLANE_EVENTS, the fabric simulator publishing to its
 * webhook, the loopback ARM) at time scale 1, the default sweep (10 s): the coordinator runs the
 * hooks and acknowledges from the delivery itself, not at a sweep. Each round has its own
 * availability set of two VMs without a relay; rounds run one after another. The Resource Graph
 * backstop is off (what is measured is the delivery's path).
 */
export interface AgentlessResult {
  date: string;
  rounds: number;
  drainMs: number;
  /** First POST of the Scheduled delivery → acknowledge at the fabric. */
  deliveryToApprovalMs: Summary;
  /** The same, less the drain hook's own time: what Quiesce adds. */
  overheadMs: Summary;
  /** Delivery answered (the webhook's 200) → first drain hook call. */
  deliveryToDrainMs: Summary;
}

const DRAIN_MS = 1_000;

export async function measureAgentless(
  rounds: number,
  log: (s: string) => void,
): Promise<AgentlessResult> {
  const hooks = await startHookService({ drain: DRAIN_MS, recover: 0 });
  const groups = Array.from({ length: rounds }, (_, i) => ({
    kind: "availabilitySet" as const,
    name: `avset-appliance${i}`,
    vms: [`appliance${i}-0`, `appliance${i}-1`],
    relays: false,
    scheduledEventsPolicy: { eventGridAndResourceGraph: true },
  }));
  // No relay at all: nothing to wait for once it is up.
  const c = await startLocalCluster({
    cluster: "bench-agentless",
    timeScale: 1,
    topology: { groups },
    controlPlane: true,
    controlPlaneEvents: { resourceGraphIntervalSeconds: 0 },
    policy: (f: FabricSimulator) => ({
      default: {},
      clusters: {
        "bench-agentless": {
          azureResources: groups.map(
            (g) =>
              `${f.arm.resourceGroupId()}/providers/Microsoft.Compute/availabilitySets/${g.name}`,
          ),
          agentless: {
            enabled: true,
            drain: { url: `${hooks.url}/drain/{vmName}` },
            recover: { url: `${hooks.url}/recover/{vmName}` },
          },
        },
      },
    }),
  });
  try {
    const total: number[] = [];
    const toDrain: number[] = [];
    for (const g of groups) {
      const ev = c.fabric.schedule({
        eventType: "Freeze",
        group: g.name,
        noticeSeconds: 900,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      await waitForPhase(c, ev.eventId, ["Completed"], 60_000, 50);
      const sim = c.fabric.event(ev.eventId);
      const delivery = c.eventGrid
        ?.deliveries()
        .find(
          (d) =>
            d.eventId.toLowerCase() === ev.eventId.toLowerCase() && d.eventStatus === "Scheduled",
        );
      const firstDrain = hooks
        .calls()
        .find((h) => h.hook === "drain" && h.vm.startsWith(`${g.vms[0]?.slice(0, -2)}`));
      if (!sim?.approvedAt || delivery?.firstSentAtMs === undefined || !firstDrain)
        throw new Error(`round ${g.name}: no approval, delivery or drain recorded`);
      total.push(sim.approvedAt.realMs - delivery.firstSentAtMs);
      toDrain.push(firstDrain.startedAt - (delivery.answeredAtMs ?? delivery.firstSentAtMs));
      // A pause between rounds, not a premise: the event is Completed (its recovers done) above.
      await delay(200);
    }
    const result: AgentlessResult = {
      date: new Date().toISOString(),
      rounds,
      drainMs: DRAIN_MS,
      deliveryToApprovalMs: summary(total),
      overheadMs: summary(total.map((t) => t - DRAIN_MS)),
      deliveryToDrainMs: summary(toDrain),
    };
    log(
      `(m) agentless: Event Grid delivery -> ARM approval median ${result.deliveryToApprovalMs.median} ms, p90 ${result.deliveryToApprovalMs.p90} ms (drains ${DRAIN_MS} ms)`,
    );
    return result;
  } finally {
    await c.stop();
    await hooks.stop();
  }
}

/** latest.md's section for (m). */
export function renderAgentless(r: AgentlessResult): string[] {
  const row = (name: string, s: Summary) => `| ${name} | ${s.median} | ${s.p90} | ${s.max} |`;
  return [
    "### (m) Agentless: Event Grid delivery to ARM approval",
    "",
    `${r.rounds} events, one at a time, each on its own availability set of two VMs without a relay; drain hooks take ${r.drainMs} ms (called by the coordinator, both VMs at once); time scale 1, default 10 s sweep, Resource Graph backstop off.`,
    "",
    "| ms | median | p90 | max |",
    "| --- | --- | --- | --- |",
    row("delivery → ARM acknowledge at the fabric", r.deliveryToApprovalMs),
    row("of which Quiesce (less the 1 s drain)", r.overheadMs),
    row("delivery answered → first drain hook call", r.deliveryToDrainMs),
    "",
  ];
}
