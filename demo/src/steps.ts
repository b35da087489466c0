import type { LocalCluster } from "./cluster";
import type { ScenarioStep } from "./scenario";

/**
 * One scenario step played against the local cluster: Azure's side through the fabric
 * simulator, an operator's through the coordinator's status API. Says what it did. What a step
 * stands on (Quiesce has seen the event it acts on, its `when`) the player has waited for
 * (premises.ts).
 */

export interface StepContext {
  cluster: LocalCluster;
  /** Scenario event name → EventId, filled by `schedule` steps. */
  ids: Map<string, string>;
  log: (line: string) => void;
  /** The EventId a `schedule` step must give its event (its drains held: drainHolds.ts). */
  eventIdFor?: (name: string) => string | undefined;
}

const OPERATOR = "demo operator";

export async function runStep(s: ScenarioStep, x: StepContext): Promise<void> {
  const { cluster, ids, log } = x;
  const { fabric } = cluster;
  const idOf = (name: string) => {
    const id = ids.get(name);
    if (id === undefined) throw new Error(`event "${name}" was never scheduled`);
    return id;
  };
  switch (s.action) {
    case "schedule": {
      const eventId = x.eventIdFor?.(s.name);
      const ev = fabric.schedule(eventId === undefined ? s.event : { ...s.event, eventId });
      ids.set(s.name, ev.eventId);
      log(`scenario: ${s.name} (${ev.eventType} on ${ev.resources.join(", ")})`);
      break;
    }
    case "cancel":
      fabric.cancel(idOf(s.name));
      log(`scenario: Azure cancels ${s.name}`);
      break;
    case "startNow":
      fabric.startNow(idOf(s.name));
      break;
    case "changeResources":
      fabric.changeResources(idOf(s.name), s.resources);
      log(`scenario: ${s.name} now affects ${s.resources.join(", ")}`);
      break;
    case "fault":
      fabric.injectFault(s.fault);
      log(`scenario: IMDS fault ${JSON.stringify(s.fault)}`);
      break;
    case "stopRelay":
      await cluster.stopRelay(s.vm);
      log(`scenario: relay on ${s.vm} stopped`);
      break;
    case "startRelay":
      await cluster.startRelay(s.vm);
      log(`scenario: relay on ${s.vm} started`);
      break;
    case "hold":
    case "release": {
      const reason = s.action === "hold" ? (s.reason ?? "demo: hold") : "demo: release";
      await cluster.status.operator(s.action, idOf(s.name), {
        cluster: cluster.cluster,
        reason,
      });
      log(
        s.action === "hold"
          ? `scenario: ${OPERATOR} holds ${s.name} (${reason})`
          : `scenario: ${OPERATOR} releases ${s.name}`,
      );
      if (s.action === "hold") {
        // A hold that lands after the approval, or after a relay was elected to approve, holds
        // nothing: the story it begins is not told.
        const d = await cluster.status.event(idOf(s.name), cluster.cluster);
        const seen =
          d.hold === null
            ? "the status API shows no hold"
            : d.approval.approvedAt !== null
              ? `approved by ${d.approval.approvedBy} at ${d.approval.approvedAt}`
              : d.approval.lease !== null
                ? `${d.approval.lease.holder} already elected to approve`
                : null;
        if (seen) throw new Error(`premise not met: ${s.name} held before any approval (${seen})`);
      }
      break;
    }
    case "health":
      fabric.setHealth(s.endpoint, s.status);
      log(`scenario: health endpoint ${s.endpoint} now answers HTTP ${s.status}`);
      break;
    case "fireAlert":
      fabric.fireAlert(s.rule);
      log(`scenario: Azure Monitor alert ${s.rule} fires`);
      break;
    case "resolveAlert":
      fabric.resolveAlert(s.rule);
      log(`scenario: Azure Monitor alert ${s.rule} resolved`);
      break;
  }
}
