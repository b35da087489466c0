import { randomBytes } from "node:crypto";
import { HttpRequest, InvocationContext } from "@azure/functions";
import {
  type FabricSimulator,
  generateTopology,
  getInstanceMetadata,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import {
  type Coordinator,
  createCoordinator,
  loadCoordinatorSettings,
  startAzurite,
} from "@quiesce/functions";
import { type VmIdentity, vmIdentityFromInstanceMetadata } from "@quiesce/protocol/imds";
import {
  PROTOCOL_VERSION,
  type RelayReport,
  type ReportAttestation,
} from "@quiesce/protocol/relay";
import { round, type Summary, summary } from "./stats";

/**
 * (k) What attestation costs per report (docs/auth.md, "Attestation"), side by side in one run:
 * the same idle heartbeat to a coordinator with attestation off and, from a bound relay with its
 * token, to one under `require`; and the reports that bind: the challenge (a 403), the first
 * proof of a VM (CMS and chain verification plus the one ARM read) and a re-attestation within
 * the period (verification, no ARM read). In process: the real handlers on real HttpRequests,
 * Azurite, the fabric simulator's IMDS (documents signed by its test CA) and loopback ARM.
 * CPU is this process's (the coordinator and the simulator's ARM answering the read; Azurite is
 * its own process), per report of a batch of the same kind.
 */

export interface AttestationCost {
  n: number;
  ms: Summary;
  cpuMsPerReport: number;
  /** Table operations per report (the store's own counters). */
  tableOps: { reads: number; queries: number; writes: number };
  armReadsPerReport: number;
}

export interface AttestationResult {
  date: string;
  vms: number;
  /** Heartbeats per VM and kind in the side-by-side rounds. */
  rounds: number;
  off: AttestationCost;
  bound: AttestationCost;
  challenge: AttestationCost;
  firstProof: AttestationCost;
  reattest: AttestationCost;
  /** The very first proof of the coordinator: it also fetches the intermediate by AIA once. */
  firstEverProofMs: number;
}

const CLUSTER = "bench-attest";

function post(c: Coordinator, key: string, body: unknown) {
  const req = new HttpRequest({
    method: "POST",
    url: "http://localhost/api/relay/report",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: { string: JSON.stringify(body) },
  });
  return c.handlers.report(req, new InvocationContext({ logHandler: () => undefined }));
}

const report = (vm: VmIdentity, bootId: string, attestation?: ReportAttestation): RelayReport => ({
  protocol: PROTOCOL_VERSION,
  cluster: CLUSTER,
  vm,
  relay: { version: "bench", bootId },
  document: { DocumentIncarnation: 1, Events: [] },
  hooks: [],
  approvals: [],
  ...(attestation ? { attestation } : {}),
});

interface Sample {
  ms: number[];
  cpuUs: number;
  ops: { reads: number; queries: number; writes: number };
  armReads: number;
}

export async function measureAttestation(vms = 200, rounds = 5): Promise<AttestationResult> {
  const azurite = await startAzurite();
  const sim = await startFabricSimulator({ topology: generateTopology(vms, 50) });
  try {
    process.env.IDENTITY_ENDPOINT = sim.identity.endpoint;
    process.env.IDENTITY_HEADER = sim.identity.header;
    const relayKey = randomBytes(24).toString("base64url");
    const settings = async (mode: string) =>
      loadCoordinatorSettings({
        QUIESCE_STORAGE_CONNECTION_STRING: azurite.connectionString,
        QUIESCE_TABLE_PREFIX: `k${randomBytes(4).toString("hex")}`,
        QUIESCE_AUTH_MODE: "sharedKey",
        QUIESCE_RELAY_KEY: relayKey,
        QUIESCE_OPERATOR_KEY: randomBytes(24).toString("base64url"),
        QUIESCE_CONTROL_PLANE: "true",
        QUIESCE_ARM_ENDPOINT: sim.armUrl,
        QUIESCE_ARM_AUDIENCE: "https://management.azure.com",
        QUIESCE_ATTESTATION: mode,
        QUIESCE_ATTESTATION_TRUST_ROOTS: await sim.attestation.trustRootsPem(),
        QUIESCE_ATTESTATION_AIA_HOSTS: sim.attestation.aiaHost,
        QUIESCE_ATTESTATION_INTERMEDIATES: "none",
      });
    const off = await createCoordinator(await settings("off"));
    const strict = await createCoordinator(await settings("require"));
    const ids: VmIdentity[] = [];
    for (const name of sim.vmNames()) ids.push(await identityOf(sim, name));

    const armReads = () => sim.arm.requests().filter((r) => r.method === "GET").length;
    const batch = async (
      c: Coordinator,
      make: (vm: VmIdentity, i: number) => Promise<() => Promise<unknown>>,
    ) => {
      const s: Sample = { ms: [], cpuUs: 0, ops: { reads: 0, queries: 0, writes: 0 }, armReads: 0 };
      for (const [i, vm] of ids.entries()) {
        const send = await make(vm, i); // whatever the relay does first (IMDS) is not the coordinator's
        const ops = c.deps.store.stats();
        const arm = armReads();
        const cpu = process.cpuUsage();
        const t = performance.now();
        await send();
        s.ms.push(performance.now() - t);
        const used = process.cpuUsage(cpu);
        s.cpuUs += used.user + used.system;
        const after = c.deps.store.stats();
        s.ops.reads += after.reads - ops.reads;
        s.ops.queries += after.queries - ops.queries;
        s.ops.writes += after.writes - ops.writes;
        s.armReads += armReads() - arm;
      }
      return s;
    };

    // Registration: every VM once with each coordinator (its member row is written then).
    await batch(off, async (vm) => () => post(off, relayKey, report(vm, "boot-1", {})));
    const tokens = new Map<string, string>();
    const nonces = new Map<string, string>();
    const challenge = await batch(strict, async (vm) => async () => {
      const res = await post(strict, relayKey, report(vm, "boot-1", {}));
      nonces.set(
        vm.name,
        (res.jsonBody as { attestation: { challenge: { nonce: string } } }).attestation.challenge
          .nonce,
      );
    });
    let firstEverProofMs = 0;
    const firstProof = await batch(strict, async (vm, i) => {
      const nonce = nonces.get(vm.name) as string;
      const document = await sim.attestation.document(vm.name, nonce);
      return async () => {
        const t = performance.now();
        const res = await post(
          strict,
          relayKey,
          report(vm, "boot-1", { proof: { nonce, document } }),
        );
        if (i === 0) firstEverProofMs = performance.now() - t;
        const token = (res.jsonBody as { attestation?: { token?: string } }).attestation?.token;
        if (res.status !== 200 || !token)
          throw new Error(`not bound: ${res.status} ${JSON.stringify(res.jsonBody)}`);
        tokens.set(vm.name, token);
      };
    });

    // Side by side: the same heartbeat, attestation off and bound, alternating batches.
    const offSamples: Sample[] = [];
    const boundSamples: Sample[] = [];
    for (let r = 0; r < rounds; r++) {
      offSamples.push(
        await batch(off, async (vm) => () => post(off, relayKey, report(vm, "boot-1", {}))),
      );
      boundSamples.push(
        await batch(strict, async (vm) => async () => {
          const res = await post(
            strict,
            relayKey,
            report(vm, "boot-1", { token: tokens.get(vm.name) as string }),
          );
          if (res.status !== 200) throw new Error(`bound report refused: ${res.status}`);
        }),
      );
    }

    // A restart of every relay within the period: challenge, then a proof without the ARM read.
    const again = new Map<string, string>();
    await batch(strict, async (vm) => async () => {
      const res = await post(strict, relayKey, report(vm, "boot-2", {}));
      again.set(
        vm.name,
        (res.jsonBody as { attestation: { challenge: { nonce: string } } }).attestation.challenge
          .nonce,
      );
    });
    const reattest = await batch(strict, async (vm) => {
      const nonce = again.get(vm.name) as string;
      const document = await sim.attestation.document(vm.name, nonce);
      return async () => {
        const res = await post(
          strict,
          relayKey,
          report(vm, "boot-2", { proof: { nonce, document } }),
        );
        if (res.status !== 200) throw new Error(`re-attestation refused: ${res.status}`);
      };
    });

    return {
      date: new Date().toISOString(),
      vms: ids.length,
      rounds,
      off: cost(merge(offSamples)),
      bound: cost(merge(boundSamples)),
      challenge: cost(challenge),
      firstProof: cost(firstProof),
      reattest: cost(reattest),
      firstEverProofMs: round(firstEverProofMs, 1),
    };
  } finally {
    await sim.stop();
    await azurite.stop();
  }
}

async function identityOf(sim: FabricSimulator, vm: string): Promise<VmIdentity> {
  const md = await getInstanceMetadata(sim.imdsUrl(vm));
  if (!md.body) throw new Error(`no instance metadata for ${vm}`);
  return vmIdentityFromInstanceMetadata(md.body);
}

function merge(samples: Sample[]): Sample {
  return samples.reduce((a, b) => ({
    ms: [...a.ms, ...b.ms],
    cpuUs: a.cpuUs + b.cpuUs,
    ops: {
      reads: a.ops.reads + b.ops.reads,
      queries: a.ops.queries + b.ops.queries,
      writes: a.ops.writes + b.ops.writes,
    },
    armReads: a.armReads + b.armReads,
  }));
}

function cost(s: Sample): AttestationCost {
  const n = s.ms.length;
  const ms = summary(s.ms);
  return {
    n,
    ms: {
      ...ms,
      median: round(ms.median, 2),
      p90: round(ms.p90, 2),
      min: round(ms.min, 2),
      max: round(ms.max, 2),
    },
    cpuMsPerReport: round(s.cpuUs / 1000 / n, 3),
    tableOps: {
      reads: round(s.ops.reads / n, 2),
      queries: round(s.ops.queries / n, 2),
      writes: round(s.ops.writes / n, 2),
    },
    armReadsPerReport: round(s.armReads / n, 2),
  };
}
