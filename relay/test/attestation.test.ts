import { describe, expect, it } from "vitest";
import { type Harness, scheduled, useHarness } from "./support/harness";
import { waitFor } from "./support/wait";

/**
 * The relay's side of attestation (docs/auth.md): it says it can attest, answers a challenge
 * with the IMDS attested document for that nonce, and then sends its token with every report; a
 * refusal carrying a challenge is answered on the retry. It checks nothing itself.
 */
describe("relay attestation", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });

  const TOKEN = "t".repeat(43);
  const NONCE = "abc123XYZ";

  it("answers a coordinator that requires attestation, and sends the token it was given with every later report", async () => {
    h.coordinator.requireAttestation = { token: TOKEN, nonce: NONCE };
    await h.start();
    await waitFor("a bound report", () => h.coordinator.last()?.attestation?.token === TOKEN);
    const proofs = h.coordinator.reports.filter((r) => r.attestation?.proof);
    expect(proofs).toHaveLength(1);
    expect(proofs[0]?.attestation?.proof).toMatchObject({ nonce: NONCE });
    const fetched = h.imds.requests.filter((r) => r.path === "/metadata/attested/document");
    expect(fetched.map((r) => r.query.get("nonce"))).toEqual([NONCE]);
    expect(fetched[0]?.query.get("api-version")).toBe("2021-02-01");
    // Events still flow, bound.
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("the event reported", () => h.coordinator.last()?.document?.Events.length === 1);
    expect(h.coordinator.last()?.attestation).toEqual({ token: TOKEN });
  });

  it("tells a coordinator it can attest, and never fetches a document nobody asked for", async () => {
    await h.start();
    await waitFor("two reports", () => h.coordinator.reports.length >= 2);
    expect(h.coordinator.reports.every((r) => r.attestation !== undefined)).toBe(true);
    expect(h.imds.requests.some((r) => r.path === "/metadata/attested/document")).toBe(false);
  });

  it("keeps reporting to a 1.0 coordinator that refuses the attestation field, without it", async () => {
    h.coordinator.strict10 = true;
    await h.start();
    await waitFor("a report applied", () => h.coordinator.reports.length > 0);
    expect(h.coordinator.invalid[0]).toContain('"attestation"');
    expect(h.coordinator.last()?.attestation).toBeUndefined();
  });
});
