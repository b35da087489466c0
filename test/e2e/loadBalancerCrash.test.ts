import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StatusClient } from "@quiesce/cli";
import { type FabricSimulator, startFabricSimulator } from "@quiesce/fabric-simulator";
import { type AzuriteHandle, startAzurite } from "@quiesce/functions";
import { parseRelaySettings, type RelayHandle, silentLogger, startRelay } from "@quiesce/relay";
import { FAST_POLICY, simEvent } from "@quiesce/testkit/cluster";
import { CoordinatorProcess, coordinatorBundle } from "@quiesce/testkit/coordinator";
import { hookMarkers } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A coordinator SIGKILLed while a VM it took out of its load balancer is still out: the step is
 * in Table Storage, so the instance that comes back (same data, same port) puts the VM back once
 * its recover hook succeeded. The coordinator is its own process (the local host, bundled); the
 * relays and the fabric simulator (its loopback ARM and load balancer) run in this process.
 */
const VMS = ["web-0", "web-1"];
const topology = {
  groups: [{ kind: "availabilitySet" as const, name: "avset-web", vms: VMS }],
  loadBalancers: [{ name: "lb-web", pools: [{ name: "web", groups: ["avset-web"] }] }],
};

describe("load-balancer drain across a coordinator crash", () => {
  const markers = hookMarkers();
  const work = mkdtempSync(join(tmpdir(), "quiesce-lb-crash-"));
  const relays: RelayHandle[] = [];
  let azurite: AzuriteHandle;
  let fabric: FabricSimulator;
  let coordinator: CoordinatorProcess;

  beforeAll(async () => {
    azurite = await startAzurite();
    fabric = await startFabricSimulator({ topology, timeScale: 1 });
    // The managed identity as App Service provides it; the child process inherits it.
    process.env.IDENTITY_ENDPOINT = fabric.identity.endpoint;
    process.env.IDENTITY_HEADER = fabric.identity.header;
    coordinator = new CoordinatorProcess({
      bundle: await coordinatorBundle(),
      connectionString: azurite.connectionString,
      keysDir: join(work, "keys"),
      sweepIntervalMs: 300,
      settings: {
        QUIESCE_POLICY: JSON.stringify({
          default: { ...FAST_POLICY, loadBalancerDrain: { enabled: true, settleSeconds: 1 } },
        }),
        QUIESCE_CONTROL_PLANE: "true",
        QUIESCE_ARM_ENDPOINT: fabric.armUrl,
        QUIESCE_ARM_AUDIENCE: "https://management.azure.com",
        // Attestation against the fabric's test CA, as every control-plane cluster here.
        QUIESCE_ATTESTATION_TRUST_ROOTS: await fabric.attestation.trustRootsPem(),
        QUIESCE_ATTESTATION_AIA_HOSTS: fabric.attestation.aiaHost,
      },
    });
    await coordinator.start();
    for (const vm of VMS)
      relays.push(
        await startRelay(
          parseRelaySettings({
            QUIESCE_COORDINATOR_URL: coordinator.url,
            QUIESCE_CLUSTER: "crash",
            QUIESCE_AUTH_MODE: "sharedKey",
            QUIESCE_RELAY_KEY: coordinator.relayKey,
            QUIESCE_IMDS_URL: fabric.imdsUrl(vm),
            QUIESCE_STATE_FILE: join(work, `${vm}.json`),
            QUIESCE_DRAIN_COMMAND: markers.command,
            QUIESCE_RECOVER_COMMAND: markers.command,
            QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: 0,
          }),
          { logger: silentLogger, reportRetry: { baseMs: 200, maxMs: 1_000 } },
        ),
      );
  });
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.stop()));
    await coordinator?.stop();
    await fabric?.stop();
    await azurite?.stop();
    markers.remove();
    rmSync(work, { recursive: true, force: true });
  });

  const adminState = (vm: string) =>
    fabric.loadBalancers()[0]?.pools[0]?.backends.find((b) => b.vm === vm)?.adminState;

  it("restores the admin state it set after a SIGKILL between taking the VM down and putting it back", async () => {
    markers.hold("recover", "web-0");
    const ev = fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0"],
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await waitFor(
      "the event started, web-0 out of its load balancer",
      () => simEvent(fabric, ev.eventId).startedAt !== undefined && adminState("web-0") === "Down",
      30_000,
    );
    await coordinator.kill();
    // Azure ends the maintenance and the recover hook finishes while no coordinator runs.
    await waitFor(
      "the event to leave the document",
      () => simEvent(fabric, ev.eventId).phase === "Removed",
      30_000,
    );
    markers.release("recover", "web-0");
    expect(adminState("web-0")).toBe("Down");
    await coordinator.start();
    const status = new StatusClient(coordinator.url, coordinator.operatorKey);
    // What the coordinator knew, for a failure in CI.
    const explain = async (e: unknown) => {
      const d = await status.event(ev.eventId, "crash").catch((x: unknown) => String(x));
      throw new Error(`${(e as Error).message}\n${JSON.stringify(d)}\n${coordinator.output}`);
    };
    await waitFor(
      "web-0 back in its load balancer",
      () => adminState("web-0") === "None",
      30_000,
    ).catch(explain);
    await waitFor(
      "the event Completed",
      async () => (await status.event(ev.eventId, "crash")).phase === "Completed",
      30_000,
    ).catch(explain);
    const d = await status.event(ev.eventId, "crash");
    expect(d.readiness.find((r) => r.vm === "web-0")?.loadBalancer?.state).toBe("restored");
    expect(adminState("web-1")).toBe("None"); // never named, never touched
  });
});
