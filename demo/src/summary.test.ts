import { describe, expect, it } from "vitest";
import { gateHold } from "./gateHold";
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

  it("tells how long safety gates held an event, from its history", () => {
    const t = (at: string, from: string, to: string, reason: string) => ({
      at: `2026-01-01T00:00:${at}Z`,
      kind: "transition" as const,
      from,
      to,
      reason,
    });
    const timeline = [
      t("00.000", "Draining", "Ready", "approval allowed (allDrained)"),
      t(
        "00.500",
        "Ready",
        "Ready",
        "waiting for gate(s): app-health (GET x answered 503, expected 200), errors (alert rule is firing)",
      ),
      t("03.000", "Ready", "Ready", "waiting for gate(s): errors (alert rule is firing)"),
      t(
        "07.700",
        "Ready",
        "Approving",
        "control plane elected approver (rule allDrained, attempt 1): no relay took the lease",
      ),
    ];
    expect(gateHold(timeline)).toEqual({ gates: ["app-health", "errors"], seconds: 7.2 });
    expect(gateHold([t("01.000", "Ready", "Ready", "gates pass")])).toBeNull();
    const passed = [timeline[1], t("02.000", "Ready", "Ready", "gates pass")].filter(
      (x) => x !== undefined,
    );
    expect(gateHold(passed)?.seconds).toBe(1.5);
  });
});
