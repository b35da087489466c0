import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The coordinator's own verifier (a test may reach across packages; product code may not).
import {
  createAiaSource,
  memoryAiaCache,
  parsePemBundle,
  verifyAttestedDocument,
} from "../../../functions/src/attestation";
import { ManualClock } from "../engine/clock";
import type { FabricSimulator } from "../simulator/api";
import { startFabricSimulator } from "../simulator/simulator";
import { signingClock } from "./service";

/**
 * Attested documents are stamped with real-world time even when the fabric's maintenance clock
 * is compressed: the coordinator checks createdOn against its own clock, and at 30x simulated
 * time is minutes ahead of it after a few seconds (the demo's relays, restarted at simulated
 * 22:30, were refused as "future").
 */

let fabric: FabricSimulator;
beforeAll(async () => {
  fabric = await startFabricSimulator({ timeScale: 30 });
});
afterAll(() => fabric.stop());

/** What the coordinator checks a document with (functions/src/attestation/index.ts). */
async function coordinatorVerifies(signature: string) {
  return verifyAttestedDocument(
    { encoding: "pkcs7", signature },
    {
      trustRoots: parsePemBundle(await fabric.attestation.trustRootsPem()),
      intermediates: createAiaSource({
        allowedHosts: [fabric.attestation.aiaHost],
        bundled: [],
        cache: memoryAiaCache(),
        attempts: 1,
      }),
      sanDomains: ["metadata.azure.com"],
      now: Date.now(),
      maxAgeMs: 600_000, // QUIESCE_ATTESTATION_MAX_AGE_SECONDS' default
      futureSkewMs: 5 * 60_000,
    },
  );
}

describe("attested documents under a compressed clock", () => {
  it("are signed at wall-clock time, which the coordinator accepts, however far simulated time ran ahead", async () => {
    // The demo's point when its db relays restart: 22:30 simulated, 45 s real at 30x.
    fabric.advance(1350);
    expect(fabric.now().simMs - Date.now()).toBeGreaterThan(20 * 60_000);
    const vm = fabric.vmNames()[0] as string;

    const before = Date.now();
    const doc = await fabric.attestation.document(vm, "n0nce");
    const result = await coordinatorVerifies(doc.signature);

    expect(result.ok ? "accepted" : `${result.error.code}: ${result.error.detail}`).toBe(
      "accepted",
    );
    if (!result.ok) return;
    // Whole seconds, as IMDS writes them.
    expect(result.value.createdOn).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(result.value.createdOn).toBeLessThanOrEqual(Date.now());
    expect(result.value.nonce).toBe("n0nce");
  });

  it("sign on a manual clock's time: a test's whole world, which its coordinator shares", () => {
    const manual = new ManualClock(Date.UTC(2026, 0, 5, 9, 0, 0));
    const now = signingClock(manual);
    manual.advanceSeconds(60);
    expect(now()).toBe(Date.UTC(2026, 0, 5, 9, 1, 0));
    expect(signingClock({ now: () => 0, timeScale: 30 })).toBe(Date.now);
  });
});
