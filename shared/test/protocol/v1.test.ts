import { describe, expect, it } from "vitest";
import { parseRelayReport, ReportResponse } from "../../src";
import { report, scheduled } from "../core/fixtures";

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

  it("rejects control characters in VM names and unknown top-level fields", () => {
    expect(parseRelayReport({ ...good, vm: { ...good.vm, name: "vm\u0000" } }).ok).toBe(false);
    expect(parseRelayReport({ ...good, extra: 1 }).ok).toBe(false);
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
