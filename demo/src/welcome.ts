import type { WebhookReceiver } from "@quiesce/functions";
import type { LocalCluster } from "./cluster";
import type { HookService } from "./hookService";
import type { Scenario } from "./scenario";

/** What the demo prints once everything is up: where each part is, how to reach it. */
export function startupLines(
  c: LocalCluster,
  scenario: Scenario,
  o: { receiver: WebhookReceiver; hooks: HookService | undefined; logPath: string },
): string[] {
  const lines = [
    "",
    `  status page   ${c.coordinatorUrl}/api/ui   (sign in with the operator key below)`,
    `  coordinator   ${c.coordinatorUrl}   (status: ${c.coordinatorUrl}/api/status)`,
    `  simulator     ${c.fabric.url}   (control API: ${c.fabric.url}/control/timeline)`,
    `  relays        ${c.relays.size} VMs: ${[...c.relays.keys()].join(", ")}`,
  ];
  const relayless = c.fabric.vmNames().filter((vm) => !c.relays.has(vm));
  if (relayless.length > 0)
    lines.push(
      `  no relay      ${relayless.join(", ")} (drained by the coordinator through ${o.hooks?.url ?? "no hook service"})`,
    );
  if (c.eventGrid)
    lines.push(
      `  Event Grid    the simulator delivers every event change to ${c.coordinatorUrl}/api/maintenance/eventgrid (handshake ${c.eventGrid.handshake.state})`,
    );
  if (scenario.controlPlane)
    lines.push(
      `  control plane the coordinator acts through the simulator's Azure Resource Manager at ${c.fabric.armUrl}`,
      `                (load balancers: ${c.fabric.url}/control/loadBalancers, ARM calls: ${c.fabric.url}/control/arm/requests)`,
    );
  lines.push(
    `  operator key  ${c.operatorKey}`,
    "  reader key    in .quiesce/local-keys.json (read-only: the page shows no operator buttons)",
    "  try:",
    `                curl -s -H "Authorization: Bearer $(node -p 'require("./.quiesce/local-keys.json").operatorKey')" ${c.coordinatorUrl}/api/status`,
    `  your relay    QUIESCE_COORDINATOR_URL=${c.coordinatorUrl} QUIESCE_CLUSTER=${c.cluster} QUIESCE_AUTH_MODE=sharedKey`,
    "                QUIESCE_RELAY_KEY=<relayKey in .quiesce/local-keys.json>",
    `  notifications ${o.receiver.url("webhook")}   (signed webhook; each message is printed below as it arrives)`,
    `  alerts        ${c.coordinatorUrl}/api/alerts   (coverage and undelivered notifications)`,
    "  metrics       OpenTelemetry SDK in this process, printed after the summary",
    "                (in Azure: Application Insights, customMetrics; see docs/operations.md)",
    `  log           ${o.logPath}   (the coordinator's and the relays' records; counted at the end)`,
    `  time scale    ${scenario.timeScale}x (a 15-minute notice passes in ${Math.round(900 / scenario.timeScale)} s)`,
    "",
  );
  return lines;
}
