import { parseRelayReport, parseReportResponse, ReportResponse } from "@quiesce/protocol/relay";
import { report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";

describe("protocol v1", () => {
  const good = report("vm0", 3, [scheduled("E1", ["vm0"])]);

  it("accepts a well-formed report and any 1.x minor version", () => {
    expect(parseRelayReport(good).ok).toBe(true);
    expect(parseRelayReport({ ...good, protocol: "1.7" }).ok).toBe(true);
  });

  it("refuses another major version with an error naming the version, before looking at the fields", () => {
    const r = parseRelayReport({ protocol: "2.0", whatever: true });
    expect(r).toEqual({
      ok: false,
      error: expect.stringMatching(/unsupported protocol version "2.0".*1\.x/),
    });
  });

  it("names each wrong field in the error", () => {
    const r = parseRelayReport({ ...good, cluster: "bad/cluster", vm: { ...good.vm, name: "" } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/cluster:/);
      expect(r.error).toMatch(/vm\.name:/);
    }
  });

  it("rejects control characters in VM names", () => {
    expect(parseRelayReport({ ...good, vm: { ...good.vm, name: "vm\u0000" } }).ok).toBe(false);
  });

  it("accepts a newer 1.x relay's unknown fields and drops them (minor versions only add fields)", () => {
    const parsed = parseRelayReport({
      ...good,
      protocol: "1.4",
      extra: 1,
      vm: { ...good.vm, osType: "Linux" },
      relay: { ...good.relay, platform: "linux-x64" },
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value).not.toHaveProperty("extra");
    expect(parsed.value.vm).not.toHaveProperty("osType");
  });

  it("skips, one by one, directives a relay does not understand and keeps the others", () => {
    const parsed = parseReportResponse({
      protocol: "1.3",
      applied: true,
      nextReportInSeconds: 5,
      budget: 2,
      directives: [
        { kind: "throttle", seconds: 3 },
        { kind: "approve", eventIds: ["E1"], leaseExpiresAt: "2022-04-11T22:00:30.000Z", x: 1 },
        { kind: "recover" },
        null,
      ],
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.response.directives).toEqual([
      { kind: "approve", eventIds: ["E1"], leaseExpiresAt: "2022-04-11T22:00:30.000Z" },
    ]);
    expect(parsed.value.skipped.map((s) => s.kind)).toEqual(["throttle", "recover", "(none)"]);
  });

  it("parses a coordinator answer with directives", () => {
    const answer = ReportResponse.parse({
      protocol: "1.0",
      applied: true,
      nextReportInSeconds: 5,
      directives: [
        { kind: "approve", eventIds: ["E1"], leaseExpiresAt: "2022-04-11T22:00:30.000Z" },
        { kind: "recover", eventId: "E0" },
      ],
    });
    expect(answer.directives).toHaveLength(2);
  });
});
