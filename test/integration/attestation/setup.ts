import {
  ManualClock as FabricClock,
  type FabricSimulator,
  getInstanceMetadata,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { type VmIdentity, vmIdentityFromInstanceMetadata } from "@quiesce/protocol/imds";
import {
  type AttestedDocument,
  PROTOCOL_VERSION,
  type RelayReport,
  type ReportAttestation,
} from "@quiesce/protocol/relay";
import {
  ManualClock,
  postReport,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { afterAll, beforeAll } from "vitest";

/**
 * What the attestation tests share: one fabric (its IMDS serves attested documents signed by its
 * test CA, its ARM answers VM reads with vmIds) on a manual clock the coordinators share, and
 * relays' exchanges with a coordinator built from real reports and real IMDS answers.
 */
export const CLUSTER = "api";
export const A = "vmss-api_0";
export const B = "vmss-api_1";

export function useAttestationFabric(): { readonly sim: FabricSimulator; readonly start: number } {
  const ctx = {} as { sim: FabricSimulator; start: number };
  beforeAll(async () => {
    // Now, to the second: the test CA's certificates are valid around the real time.
    ctx.start = Math.floor(Date.now() / 1000) * 1000;
    ctx.sim = await startFabricSimulator({ clock: new FabricClock(ctx.start) });
    // The coordinator's managed identity, as App Service provides it.
    process.env.IDENTITY_ENDPOINT = ctx.sim.identity.endpoint;
    process.env.IDENTITY_HEADER = ctx.sim.identity.header;
  });
  afterAll(() => ctx.sim?.stop());
  return ctx;
}

/** The coordinator settings that attest against this fabric (its CA, its AIA host, its ARM). */
export async function attestationSettings(
  sim: FabricSimulator,
  mode: "prefer" | "require",
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return {
    QUIESCE_CONTROL_PLANE: "true",
    QUIESCE_ARM_ENDPOINT: sim.armUrl,
    QUIESCE_ARM_AUDIENCE: "https://management.azure.com",
    QUIESCE_ATTESTATION: mode,
    QUIESCE_ATTESTATION_TRUST_ROOTS: await sim.attestation.trustRootsPem(),
    QUIESCE_ATTESTATION_AIA_HOSTS: sim.attestation.aiaHost,
    QUIESCE_ATTESTATION_INTERMEDIATES: "none",
    ...extra,
  };
}

export async function attestingCoordinator(
  connectionString: string,
  sim: FabricSimulator,
  mode: "prefer" | "require",
  extra: Record<string, string> = {},
  clock = new ManualClock(sim.now().simMs),
): Promise<TestCoordinator> {
  return testCoordinator(connectionString, {
    clock,
    settings: await attestationSettings(sim, mode, extra),
  });
}

export async function identityOf(sim: FabricSimulator, vm: string): Promise<VmIdentity> {
  const md = await getInstanceMetadata(sim.imdsUrl(vm));
  if (!md.body) throw new Error(`no instance metadata for ${vm}`);
  return vmIdentityFromInstanceMetadata(md.body);
}

/** `attestation: null`: a relay before protocol 1.2, which sends no such field. */
export function report(
  vm: VmIdentity,
  bootId: string,
  attestation: ReportAttestation | null = {},
): RelayReport {
  return {
    protocol: attestation ? PROTOCOL_VERSION : "1.1",
    cluster: CLUSTER,
    vm,
    relay: { version: "1.2.0", bootId },
    document: { DocumentIncarnation: 1, Events: [] },
    hooks: [],
    approvals: [],
    ...(attestation ? { attestation } : {}),
  };
}

/** What IMDS on `vm` signs for this nonce (a relay's own document). */
export const documentOf = (
  sim: FabricSimulator,
  vm: string,
  nonce: string,
): Promise<AttestedDocument> => sim.attestation.document(vm, nonce);

/**
 * A relay's whole exchange under require: its first report is refused with a challenge, it
 * answers with its own VM's document, and is given its token.
 */
export async function bind(
  c: TestCoordinator,
  sim: FabricSimulator,
  vm: string,
  bootId: string,
): Promise<string> {
  const id = await identityOf(sim, vm);
  const first = await postReport(c, report(id, bootId));
  const nonce = first.body.attestation?.challenge?.nonce;
  if (!nonce) throw new Error(`no challenge: ${first.status} ${JSON.stringify(first.body)}`);
  const proved = await postReport(
    c,
    report(id, bootId, { proof: { nonce, document: await documentOf(sim, vm, nonce) } }),
  );
  const token = proved.body.attestation?.token;
  if (proved.status !== 200 || !token)
    throw new Error(`not bound: ${proved.status} ${JSON.stringify(proved.body)}`);
  return token;
}
