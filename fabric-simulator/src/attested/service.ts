import type { ServerResponse } from "node:http";
import type { VmRecord } from "../topology/topology";
import { aiaFiles, createTestPki, type TestPki } from "./pki";
import { attestedContent, signAttestedDocument } from "./sign";

/**
 * IMDS's attested data, simulated: each VM's document signed by a test CA hierarchy made at
 * start-up the way Azure's is shaped (a root standing in for DigiCert Global Root G2, a "TLS
 * root" self-signed and cross-signed by it, an intermediate, a leaf for `<region>.metadata.azure.com`),
 * with the intermediates served over loopback at their AIA URLs, as www.microsoft.com serves
 * Azure's. Nothing tells a verifier it is not Azure but the trust root it is configured with.
 */
export interface AttestationStandIn {
  /** `host:port` the AIA URLs point at: the coordinator's QUIESCE_ATTESTATION_AIA_HOSTS. */
  readonly aiaHost: string;
  /** The test root (the DigiCert Global Root G2 stand-in) as PEM: QUIESCE_ATTESTATION_TRUST_ROOTS. */
  trustRootsPem(): Promise<string>;
  /** The whole test hierarchy, for tests that forge documents. */
  pki(): Promise<TestPki>;
  /** The document IMDS would give this VM for this nonce, now. */
  document(vmName: string, nonce?: string): Promise<{ encoding: "pkcs7"; signature: string }>;
}

/**
 * The clock attested documents are signed on. A certificate's validity and a document's
 * createdOn/expiresOn are real-world times, which a verifier compares with its own clock: under a
 * compressed clock (timeScale set) simulated time runs ahead of every other clock in the system,
 * so a document stamped with it would be refused as from the future. A manual clock is a test's
 * whole world (its coordinator's clock is set from it), so its time is the signing time.
 */
export function signingClock(clock: {
  now(): number;
  readonly timeScale: number | undefined;
}): () => number {
  return clock.timeScale === undefined ? () => clock.now() : Date.now;
}

/** IMDS's default nonce when none is given: the current UTC time, `YYYYMMDD-HHMMSS`. */
const defaultNonce = (now: number) =>
  new Date(now).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);

export class AttestedDocuments {
  private made: Promise<TestPki> | undefined;

  constructor(
    private readonly baseUrl: () => string,
    private readonly vm: (name: string) => VmRecord | undefined,
    /** Real-world time (signingClock), not the fabric's simulated time. */
    private readonly now: () => number,
  ) {}

  /** Made on first use: generating the keys costs a few hundred ms that most tests never need. */
  pki(): Promise<TestPki> {
    this.made ??= createTestPki({ aiaBaseUrl: this.baseUrl(), region: "eastus" });
    return this.made;
  }

  async document(vm: VmRecord, nonce: string | undefined) {
    const pki = await this.pki();
    const content = attestedContent({
      vmId: vm.vmId,
      subscriptionId: vm.subscriptionId,
      nonce: nonce ?? defaultNonce(this.now()),
      createdOn: new Date(this.now()),
    });
    return { encoding: "pkcs7" as const, signature: await signAttestedDocument(content, pki.leaf) };
  }

  /** Serves `/pkiops/certs/<name>.crt` (DER, as Microsoft's PKI repository does); false if not one. */
  async serveAia(path: string, res: ServerResponse): Promise<boolean> {
    if (!path.startsWith("/pkiops/")) return false;
    const der = aiaFiles(await this.pki()).get(path);
    if (!der) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return true;
    }
    res
      .writeHead(200, { "content-type": "application/pkix-cert", "content-length": der.byteLength })
      .end(Buffer.from(der));
    return true;
  }

  standIn(): AttestationStandIn {
    return {
      aiaHost: new URL(this.baseUrl()).host,
      trustRootsPem: async () => (await this.pki()).root.pem,
      pki: () => this.pki(),
      document: async (name, nonce) => {
        const vm = this.vm(name);
        if (!vm) throw new Error(`no simulated VM named ${name}`);
        return this.document(vm, nonce);
      },
    };
  }
}
