import { describe, expect, it } from "vitest";
import { parseAttestedContent, parseImdsTimestamp } from "./content";

/** The signed JSON and IMDS's "MM/DD/YY HH:mm:ss -0000" timestamps. */

const bytes = (value: unknown) =>
  new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));

// The content of a real attested document (eastus, July 2026), field for field.
const REAL = `{"licenseType":"","nonce":"20260728-192400","plan":{"name":"","product":"","publisher":""},"sku":"","subscriptionId":"8a205152-b25a-417f-a676-80465535a6c9","timeStamp":{"createdOn":"07/28/26 13:24:00 -0000","expiresOn":"07/28/26 19:24:00 -0000"},"vmId":"b1310a36-d400-46f6-82cb-6217df846586"}`;

describe("parseImdsTimestamp", () => {
  it.each([
    ["07/28/26 13:24:00 -0000", "2026-07-28T13:24:00.000Z"],
    ["11/30/20 21:19:19 -0000", "2020-11-30T21:19:19.000Z"],
    ["11/30/20 21:19:19 +0000", "2020-11-30T21:19:19.000Z"],
    ["01/01/27 00:30:00 +0100", "2026-12-31T23:30:00.000Z"],
    ["12/31/26 19:00:00 -0500", "2027-01-01T00:00:00.000Z"],
    ["02/29/28 12:00:00 -0000", "2028-02-29T12:00:00.000Z"],
  ])("%s is %s (the offset honoured, years 20YY)", (text, iso) => {
    expect(new Date(parseImdsTimestamp(text) as number).toISOString()).toBe(iso);
  });

  it.each([
    "2026-07-28T13:24:00Z",
    "07/28/2026 13:24:00 -0000",
    "07/28/26 13:24:00",
    "07/28/26 13:24:00 UTC",
    "13/01/26 00:00:00 -0000",
    "02/30/26 00:00:00 -0000",
    "02/29/27 00:00:00 -0000",
    "07/28/26 24:00:00 -0000",
    "07/28/26 13:60:00 -0000",
    "07/28/26 13:24:00 -0060",
    " 07/28/26 13:24:00 -0000",
  ])("refuses %j", (text) => {
    expect(parseImdsTimestamp(text)).toBeUndefined();
  });
});

describe("parseAttestedContent", () => {
  it("reads a real document's content; an empty sku is absent", () => {
    expect(parseAttestedContent(bytes(REAL))).toEqual({
      ok: true,
      value: {
        vmId: "b1310a36-d400-46f6-82cb-6217df846586",
        subscriptionId: "8a205152-b25a-417f-a676-80465535a6c9",
        nonce: "20260728-192400",
        createdOn: Date.parse("2026-07-28T13:24:00Z"),
        expiresOn: Date.parse("2026-07-28T19:24:00Z"),
      },
    });
  });

  it("keeps a sku Azure sent, and ignores fields Azure may add", () => {
    const r = parseAttestedContent(
      bytes({ ...JSON.parse(REAL), sku: "22_04-lts-gen2", newField: { x: 1 } }),
    );
    expect(r.ok && r.value.sku).toBe("22_04-lts-gen2");
  });

  it("needs only vmId, subscriptionId, nonce and the timestamps (licenseType, plan, sku optional)", () => {
    const { licenseType: _l, plan: _p, sku: _s, ...minimal } = JSON.parse(REAL);
    expect(parseAttestedContent(bytes(minimal)).ok).toBe(true);
  });

  it.each([
    ["vmId", { vmId: undefined }],
    ["vmId", { vmId: "" }],
    ["subscriptionId", { subscriptionId: undefined }],
    ["nonce", { nonce: "" }],
    ["nonce", { nonce: 12345 }],
    ["timeStamp", { timeStamp: undefined }],
    ["timeStamp.expiresOn", { timeStamp: { createdOn: "07/28/26 13:24:00 -0000" } }],
    ["plan", { plan: "none" }],
  ])("refuses content whose %s is missing or wrong", (field, change) => {
    const r = parseAttestedContent(bytes({ ...JSON.parse(REAL), ...change }));
    expect(r.ok ? "accepted" : r.error).toMatchObject({
      code: "malformed",
      detail: expect.stringContaining(`signed content: ${field}`),
    });
  });

  it("refuses bytes that are not UTF-8 JSON", () => {
    expect(parseAttestedContent(new Uint8Array([0x7b, 0xff, 0x7d])).ok).toBe(false);
    expect(parseAttestedContent(bytes("{")).ok).toBe(false);
  });
});
