#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { parseJsonWith } from "@quiesce/protocol";
import { startFabricSimulator } from "../simulator/simulator";
import { defaultTopology, generateTopology } from "../topology/topologies";
import { Topology } from "../topology/topology";
import { parseCliArgs, USAGE } from "./args";

/** Run the fabric simulator on its own, so a real relay (and its drain hooks) can be pointed at it. */
async function main(): Promise<void> {
  let args: ReturnType<typeof parseCliArgs>;
  try {
    args = parseCliArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  let topology: Topology;
  if (args.topologyFile !== undefined) {
    const parsed = parseJsonWith(Topology, readFileSync(args.topologyFile, "utf8"));
    if (!parsed.ok) {
      process.stderr.write(`invalid topology ${args.topologyFile}: ${parsed.error}\n`);
      process.exit(2);
    }
    topology = parsed.value;
  } else {
    topology =
      args.vms !== undefined ? generateTopology(args.vms, args.groupSize) : defaultTopology();
  }

  const sim = await startFabricSimulator({
    topology,
    timeScale: args.timeScale,
    port: args.port,
    host: args.host,
    requireAllApprovals: args.requireAllApprovals,
    minStartedSeconds: args.minStartedSeconds,
  });

  const state = sim.state();
  const lines = [
    `fabric simulator listening on ${sim.url} (time scale ${args.timeScale}x: 15 simulated minutes = ${(900 / args.timeScale).toFixed(1)} s)`,
    `control API: ${sim.url}/control  (GET /control/topology, POST /control/events, GET /control/timeline ...)`,
    `Azure Resource Manager (loopback): ${sim.armUrl}  (the coordinator's QUIESCE_ARM_ENDPOINT)`,
    `  managed identity: IDENTITY_ENDPOINT=${sim.identity.endpoint} IDENTITY_HEADER=${sim.identity.header}`,
    `  (system-assigned principal ${sim.identity.principalId}; GET /control/arm for the rest)`,
    `health endpoints for HTTP gates: ${sim.url}/health/<name>  (POST /control/gates/<name> {"status": 503})`,
    "VM IMDS base URLs (set QUIESCE_IMDS_URL of each relay to one of these):",
  ];
  const groups = Object.values(state.groups);
  for (const g of groups.slice(0, 20)) {
    lines.push(`  ${g.kind} ${g.name}:`);
    for (const vm of g.vms.slice(0, 10)) {
      const noRelay = state.vms[vm]?.relay === false ? "  (declared without a relay)" : "";
      lines.push(`    ${vm.padEnd(24)} ${sim.imdsUrl(vm)}${noRelay}`);
    }
    if (g.vms.length > 10) lines.push(`    ... and ${g.vms.length - 10} more`);
  }
  if (groups.length > 20)
    lines.push(`  ... and ${groups.length - 20} more groups (GET /control/topology)`);
  process.stdout.write(`${lines.join("\n")}\n`);
  if (args.eventGridUrl !== undefined) {
    const sub = sim.eventGrid.subscribe({ endpointUrl: args.eventGridUrl, name: "cli" });
    const { handshake } = await sub.settled(60_000).catch(() => sub.view());
    process.stdout.write(
      `Event Grid subscription "cli" to ${args.eventGridUrl}: handshake ${handshake.state} (GET /control/eventGrid/subscriptions/cli)\n`,
    );
  }

  const shutdown = () => {
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((e: unknown) => {
  process.stderr.write(`fabric simulator failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
