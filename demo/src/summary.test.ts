import { describe, expect, it } from "vitest";
import { renderSummary, summarize } from "./summary";

describe("demo summary", () => {
  it("computes the share of the notice window saved from the simulator's times", () => {
    const sim = {
      eventId: "E1",
      group: "g",
      eventType: "Freeze",
      resources: ["a", "b"],
      eventSource: "Platform",
      description: "",
      durationInSeconds: 5,
      notBeforeMs: 1_000_000 + 900_000,
      startedForMs: 10_000,
      requireAllApprovals: false,
      phase: "removed",
      scheduledAt: { simMs: 1_000_000, realMs: 0 },
      approvals: [],
      approvedBy: "b",
      startedAt: { simMs: 1_000_000 + 90_000, realMs: 3_000 },
      startCause: "approval",
      resourcesHistory: [],
    } as unknown as Parameters<typeof summarize>[1];
    const s = summarize("freeze", sim, null);
    expect(s.noticeSaved).toBeCloseTo(0.9);
    expect(s.startedBeforeNotBeforeSeconds).toBe(810);
    expect(s.outcome).toBe("never reported");
    const text = renderSummary([s]);
    expect(text.split("\n")[0]).toMatch(/^event\s+type\s+VMs\s+outcome/);
    expect(text).toMatch(/90% \(810 s early\)/);
  });
});
