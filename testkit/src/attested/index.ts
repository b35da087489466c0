import { aiaFiles, attestedContent, createTestPki, type TestPki } from "@quiesce/fabric-simulator";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type HttpStub, startHttpStub } from "../stub";

/**
 * Attested documents for tests: the fabric simulator's test PKI with its AIA files served by a
 * scripted HTTP server on 127.0.0.1 (port 0), started before a file's first test and stopped
 * after its last. Before each test the server forgets what it saw and serves the PKI's AIA
 * files again, so a test may script one route (a 503, a hang) and count requests.
 */

export interface AttestedFixture {
  readonly pki: TestPki;
  /** The AIA server (its requests, its routes). */
  readonly aia: HttpStub;
  /** "127.0.0.1:<port>": the AIA host to allow. */
  readonly aiaHost: string;
  /** The URL path of the intermediate's AIA file. */
  readonly intermediatePath: string;
}

export function useAttestedPki(opts?: { region?: string }): AttestedFixture {
  let state: { pki: TestPki; aia: HttpStub } | undefined;
  const serve = (pki: TestPki, aia: HttpStub) => {
    for (const [path, der] of aiaFiles(pki)) aia.on("GET", path, { status: 200, body: der });
  };
  beforeAll(async () => {
    const aia = await startHttpStub();
    const pki = await createTestPki({
      aiaBaseUrl: aia.url,
      ...(opts?.region ? { region: opts.region } : {}),
    });
    state = { pki, aia };
  });
  afterAll(() => state?.aia.stop());
  beforeEach(() => {
    if (!state) return;
    state.aia.reset();
    serve(state.pki, state.aia);
  });
  const at = () => {
    if (!state) throw new Error("useAttestedPki(): ready in beforeAll; use it in a test");
    return state;
  };
  return {
    get pki() {
      return at().pki;
    },
    get aia() {
      return at().aia;
    },
    get aiaHost() {
      return new URL(at().aia.url).host;
    },
    get intermediatePath() {
      const pki = at().pki;
      const path = [...aiaFiles(pki)].find(([, der]) => der === pki.intermediate.der)?.[0];
      if (!path) throw new Error("the PKI serves no intermediate");
      return path;
    },
  };
}

/** A document's JSON as Azure writes it, created at `createdOn` (default now). */
export function sampleContent(
  overrides: Partial<Parameters<typeof attestedContent>[0]> = {},
): string {
  return attestedContent({
    vmId: "b1310a36-d400-46f6-82cb-6217df846586",
    subscriptionId: "8a205152-b25a-417f-a676-80465535a6c9",
    nonce: "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6",
    createdOn: new Date(),
    ...overrides,
  });
}
