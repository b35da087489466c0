import { loadCoordinatorSettings } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { startLocalEntra } from "@quiesce/testkit/entra";
import { call, ManualClock, postReport, request, testCoordinator } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import {
  A,
  attestationSettings,
  attestingCoordinator,
  B,
  bind,
  CLUSTER,
  documentOf,
  identityOf,
  report,
  useAttestationFabric,
} from "./setup";

const azurite = useAzurite();
const fabric = useAttestationFabric();

const vmReads = (vm: string) =>
  fabric.sim.arm
    .requests()
    .filter(
      (r) =>
        r.method === "GET" && r.path.toLowerCase().endsWith(`/virtualmachines/${vm.split("_")[1]}`),
    ).length;

/**
 * Issue 19: every report bound to its VM by the IMDS attested document, through the real
 * handler, the fabric's IMDS and CA, and its ARM. A and B are two instances of one scale set; the
 * relay key may report for any VM, as a scale set's shared identity may for any of its instances.
 */
describe("attestation: binding a relay to its VM", () => {
  it("binds a relay that answers its challenge with its own VM's document, and takes later reports with its token as bound", async () => {
    const c = await attestingCoordinator(azurite().connectionString, fabric.sim, "require");
    const id = await identityOf(fabric.sim, A);
    const first = await postReport(c, report(id, "boot-a"));
    expect(first.status).toBe(403);
    expect(first.body.error).toMatch(/not from the relay bound to this VM/);
    const nonce = first.body.attestation.challenge.nonce as string;
    expect(nonce).toMatch(/^[A-Za-z0-9]{32}$/);

    const readsBefore = vmReads(A);
    const proved = await postReport(
      c,
      report(id, "boot-a", { proof: { nonce, document: await documentOf(fabric.sim, A, nonce) } }),
    );
    expect(proved.status).toBe(200);
    expect(proved.body.attestation).toMatchObject({ standing: "bound" });
    const token = proved.body.attestation.token as string;
    expect(vmReads(A) - readsBefore).toBe(1);

    const later = await postReport(c, report(id, "boot-a", { token }));
    expect(later.status).toBe(200);
    expect(later.body.attestation).toEqual({ standing: "bound" });
    // Later reports cost no ARM read.
    expect(vmReads(A) - readsBefore).toBe(1);

    const status = await call(
      c.handlers.cluster,
      request("GET", `clusters/${CLUSTER}`, { key: c.operatorKey, params: { cluster: CLUSTER } }),
    );
    const member = status.body.members.find((m: { vm: string }) => m.vm === A);
    expect(member.attestation).toMatchObject({
      bound: true,
      binding: { vmId: id.vmId, bootId: "boot-a" },
      unbound: null,
      problem: null,
    });
  });

  it("under require, refuses a neighbour's report for another instance of its scale set, with or without its own document", async () => {
    const c = await attestingCoordinator(azurite().connectionString, fabric.sim, "require");
    await bind(c, fabric.sim, A, "boot-a");
    const claimed = await identityOf(fabric.sim, A);
    const plain = await postReport(c, report(claimed, "boot-b"));
    expect(plain.status).toBe(403);
    const nonce = plain.body.attestation.challenge.nonce as string;
    // B answers A's challenge with the only document it can get: its own VM's.
    const own = await postReport(
      c,
      report(claimed, "boot-b", {
        proof: { nonce, document: await documentOf(fabric.sim, B, nonce) },
      }),
    );
    expect(own.status).toBe(403);
    expect(own.body.error).toMatch(/attestation refused \(vmId\)/);
    // Claiming B's vmId as well does not help: ARM says which vmId A's resource has.
    const again = await postReport(c, report(claimed, "boot-b"));
    const n2 = again.body.attestation.challenge.nonce as string;
    const bId = (await identityOf(fabric.sim, B)).vmId;
    const lying = await postReport(
      c,
      report({ ...claimed, vmId: bId }, "boot-b", {
        proof: { nonce: n2, document: await documentOf(fabric.sim, B, n2) },
      }),
    );
    expect(lying.status).toBe(403);
    expect(lying.body.error).toMatch(/attestation refused \(vmId\): ARM says/);
  });

  it("keeps the binding across a coordinator restart: the token still binds on a new instance", async () => {
    const c = await attestingCoordinator(azurite().connectionString, fabric.sim, "require");
    const token = await bind(c, fabric.sim, A, "boot-a");
    // A new instance of the same deployment: its tables, keys and attestation settings.
    const restarted = await testCoordinator(c.connectionString, {
      clock: c.clock,
      settings: {
        ...(await attestationSettings(fabric.sim, "require")),
        QUIESCE_TABLE_PREFIX: c.prefix,
        QUIESCE_RELAY_KEY: c.relayKey,
        QUIESCE_OPERATOR_KEY: c.operatorKey,
      },
    });
    const again = await call(
      restarted.handlers.report,
      request("POST", "relay/report", {
        key: c.relayKey,
        body: report(await identityOf(fabric.sim, A), "boot-a", { token }),
      }),
    );
    expect(again.status).toBe(200);
    expect(again.body.attestation).toEqual({ standing: "bound" });
  });

  it("re-attests a restarted relay (a new bootId) and never takes the old process's token for it", async () => {
    const c = await attestingCoordinator(azurite().connectionString, fabric.sim, "require");
    const token = await bind(c, fabric.sim, A, "boot-a");
    const id = await identityOf(fabric.sim, A);
    const restarted = await postReport(c, report(id, "boot-a2", { token }));
    expect(restarted.status).toBe(403);
    expect(restarted.body.error).toMatch(/bound to relay process boot-a, not this one/);
    await bind(c, fabric.sim, A, "boot-a2");
  });

  it("tells a relay too old to attest to upgrade: refused under require, accepted unbound under prefer", async () => {
    const id = await identityOf(fabric.sim, A);
    const old = report(id, "boot-old", null);
    const strict = await attestingCoordinator(azurite().connectionString, fabric.sim, "require");
    const refused = await postReport(strict, old);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/cannot attest .*upgrade/);
    const lenient = await attestingCoordinator(azurite().connectionString, fabric.sim, "prefer");
    const taken = await postReport(lenient, old);
    expect(taken.status).toBe(200);
    expect(taken.body.attestation).toMatchObject({ standing: "unbound" });
    expect(taken.body.attestation.challenge).toBeUndefined();
  });

  it("under require, takes a user-assigned identity that names no VM (an AKS kubelet identity) once its relay proves which VM it runs on", async () => {
    const entra = await startLocalEntra();
    try {
      const uai =
        "/subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/MC_rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/pool-kubelet";
      const token = await entra.mint({ roles: ["Quiesce.Relay"], xms_mirid: uai });
      const id = await identityOf(fabric.sim, A);
      const post = (c: Awaited<ReturnType<typeof testCoordinator>>, body: unknown) =>
        postReport(c, body, token);
      // Under prefer such an identity cannot be bound: refused as before, naming the ways out.
      const lenient = await testCoordinator(azurite().connectionString, {
        clock: new ManualClock(fabric.sim.now().simMs),
        settings: { ...entra.settings, ...(await attestationSettings(fabric.sim, "prefer")) },
      });
      const refused = await post(lenient, report(id, "boot-k"));
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/cannot be bound to a VM.*require attestation/);

      const strict = await testCoordinator(azurite().connectionString, {
        clock: new ManualClock(fabric.sim.now().simMs),
        settings: { ...entra.settings, ...(await attestationSettings(fabric.sim, "require")) },
      });
      const first = await post(strict, report(id, "boot-k"));
      expect(first.status).toBe(403);
      const nonce = first.body.attestation.challenge.nonce as string;
      const proved = await post(
        strict,
        report(id, "boot-k", {
          proof: { nonce, document: await documentOf(fabric.sim, A, nonce) },
        }),
      );
      expect(proved.status).toBe(200);
      expect(proved.body.attestation.standing).toBe("bound");
      // Its token speaks for that VM only: another VM's report is not bound, so refused.
      const other = await post(strict, report(await identityOf(fabric.sim, B), "boot-k"));
      expect(other.status).toBe(403);
    } finally {
      await entra.stop();
    }
  });

  it("refuses a setting of require without the control plane, which the vmId → VM read needs", () => {
    expect(() =>
      loadCoordinatorSettings({
        QUIESCE_STORAGE_CONNECTION_STRING: azurite().connectionString,
        QUIESCE_AUTH_MODE: "sharedKey",
        QUIESCE_RELAY_KEY: "k".repeat(20),
        QUIESCE_OPERATOR_KEY: "o".repeat(20),
        QUIESCE_ATTESTATION: "require",
      }),
    ).toThrow(/require attestation.*QUIESCE_CONTROL_PLANE=true/);
  });
});
