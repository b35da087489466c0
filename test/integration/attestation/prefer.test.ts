import { attestedContent, signAttestedDocument } from "@quiesce/fabric-simulator";
import { useAttestedPki } from "@quiesce/testkit/attested";
import { useAzurite } from "@quiesce/testkit/azurite";
import { postReport } from "@quiesce/testkit/harness";
import { useSinkReceiver } from "@quiesce/testkit/notifications";
import { beforeAll, describe, expect, it } from "vitest";
import {
  A,
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
const SECRET = "s".repeat(40);
const sinks = useSinkReceiver(SECRET);
const other = useAttestedPki();

beforeAll(() => {
  // One clock for the coordinator and the receiver, at the fabric's time (the test CA's certificates are valid now).
  sinks.clock.t = fabric.start;
});

describe("attestation under prefer", () => {
  it("accepts a neighbour's report for another instance but flags the VM and alerts, once per episode", async () => {
    const from = sinks.receiver.received.length;
    const c = await attestingCoordinator(
      azurite().connectionString,
      fabric.sim,
      "prefer",
      sinks.sinkSettings({ default: { notify: { sinks: ["webhook"] } } }),
      sinks.clock,
    );
    const token = await bind(c, fabric.sim, A, "boot-a");
    const claimed = await identityOf(fabric.sim, A);
    sinks.clock.advance(1000);
    // B speaks for A: accepted (prefer), challenged; it answers with its own VM's document.
    const plain = await postReport(c, report(claimed, "boot-b"));
    expect(plain.status).toBe(200);
    expect(plain.body.attestation.standing).toBe("unbound");
    const nonce = plain.body.attestation.challenge.nonce as string;
    const own = await postReport(
      c,
      report(claimed, "boot-b", {
        proof: { nonce, document: await documentOf(fabric.sim, B, nonce) },
      }),
    );
    expect(own.status).toBe(200);
    expect(own.body.attestation).toMatchObject({ standing: "unbound" });
    expect(own.body.attestation.detail).toMatch(/attestation refused \(vmId\)/);
    await c.handlers.sweep();
    // A's own relay reports again, bound: two relays spoke for one VM.
    sinks.clock.advance(61_000);
    const back = await postReport(c, report(claimed, "boot-a", { token }));
    expect(back.body.attestation).toEqual({ standing: "bound" });
    await c.handlers.sweep();
    await c.handlers.sweep(); // nothing new: each episode alerted once
    await c.deps.notifier.settled();

    const alerts = sinks.webhookMessages(from).filter((m) => m.kind === "attestationFailed");
    expect(alerts.map((m) => m.facts.find((f) => f.name === "Check")?.value).sort()).toEqual([
      "contested",
      "vmId",
    ]);
    expect(alerts.every((m) => m.vm === A && m.cluster === CLUSTER)).toBe(true);
  });

  it("surfaces an intermediate it cannot fetch as not checkable now, after retrying: 200 unbound under prefer, 503 under require, never a 500", async () => {
    const a = await identityOf(fabric.sim, A);
    const settings = {
      QUIESCE_ATTESTATION_TRUST_ROOTS: other.pki.root.pem,
      QUIESCE_ATTESTATION_AIA_HOSTS: other.aiaHost,
    };
    const prove = async (c: Awaited<ReturnType<typeof attestingCoordinator>>, bootId: string) => {
      const first = await postReport(c, report(a, bootId));
      const nonce = first.body.attestation.challenge.nonce as string;
      const content = attestedContent({
        vmId: a.vmId,
        subscriptionId: a.subscriptionId as string,
        nonce,
        createdOn: new Date(fabric.sim.now().simMs),
      });
      const signature = signAttestedDocument(content, other.pki.leaf);
      return postReport(
        c,
        report(a, bootId, { proof: { nonce, document: { encoding: "pkcs7", signature } } }),
      );
    };
    other.aia.on("GET", other.intermediatePath, { status: 503 });
    const lenient = await attestingCoordinator(
      azurite().connectionString,
      fabric.sim,
      "prefer",
      settings,
    );
    const taken = await prove(lenient, "boot-aia-1");
    expect(taken.status).toBe(200);
    expect(taken.body.attestation.detail).toMatch(/cannot be checked now/);
    const tries = other.aia.requests.filter((r) => r.path === other.intermediatePath).length;
    expect(tries).toBe(3); // retried, then surfaced

    const strict = await attestingCoordinator(
      azurite().connectionString,
      fabric.sim,
      "require",
      settings,
    );
    const refused = await prove(strict, "boot-aia-2");
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatch(/cannot be checked now/);

    // Two failures, then the intermediate: the third attempt binds, and the next proof needs no fetch.
    const der = other.pki.intermediate.der;
    other.aia.on(
      "GET",
      other.intermediatePath,
      { status: 503 },
      { drop: true },
      { status: 200, body: der },
    );
    const bound = await prove(strict, "boot-aia-3");
    expect(bound.status).toBe(200);
    expect(bound.body.attestation.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const fetched = other.aia.requests.length;
    expect((await prove(strict, "boot-aia-4")).status).toBe(200);
    expect(other.aia.requests.length).toBe(fetched);
  });
});
