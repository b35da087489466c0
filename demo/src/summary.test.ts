import type { EventDetail } from "@quiesce/cli";
import type { Point } from "@quiesce/functions";
import { describe, expect, it } from "vitest";
import { gateHold } from "./gateHold";
import { renderMetrics } from "./metricsSummary";
import { noticeSaved, simClockOf } from "./noticeSaved";
import { renderSummary, summarize } from "./summary";

describe("demo summary", () => {
  // At 30x from T0: a real second is 30 simulated ones.
  const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
  const toSim = simClockOf({ simMs: T0, realMs: T0, timeScale: 30 });
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Seen at T0, NotBefore 900 simulated s later, approved after `approvedAfter` real s. */
  const detail = (approvedAfter: number | null, rule = "allDrained") =>
    ({
      eventType: "Freeze",
      resources: ["a", "b"],
      phase: approvedAfter === null ? "ExpiredAtNotBefore" : "Completed",
      notBefore: iso(T0 + 900_000),
      firstSeenAt: iso(T0),
      approval: {
        rule: approvedAfter === null ? null : rule,
        approvedAt: approvedAfter === null ? null : iso(T0 + approvedAfter * 1000),
        approvedBy: null,
        lease: null,
      },
      readiness: [],
      timeline: [],
    }) as unknown as EventDetail;

  it("computes notice saved as the coordinator's metric does, its three times on the simulator's clock", () => {
    // Approved 10 real s after first sight: 300 of the 900 simulated s gone, two thirds left.
    const s = summarize("freeze", undefined, detail(10), toSim);
    expect(s.noticeSaved).toEqual({ share: 2 / 3, secondsLeft: 600, outcome: "approved" });
    // What the coordinator records under a compressed clock: its real 10 s against a NotBefore
    // 900 s away on the simulator's clock (the demo's 0.99 beside the summary's 67%).
    expect(noticeSaved(detail(10), (t) => t)?.share).toBeCloseTo(890 / 900);
    expect(noticeSaved(detail(null), toSim)).toEqual({
      share: 0,
      secondsLeft: 0,
      outcome: "expiredAtNotBefore",
    });
    expect(noticeSaved(detail(40, "policy:user-events"), toSim)).toEqual({
      share: 0,
      secondsLeft: 0,
      outcome: "approvedByPolicy",
    });
    expect(noticeSaved(null, toSim)).toBeNull();
    expect(s.outcome).toBe("Completed");
    const text = renderSummary([s]);
    expect(text.split("\n")[0]).toMatch(/^event\s+type\s+VMs\s+outcome/);
    expect(text).toMatch(/67% \(600 s left\)/);
  });

  it("shows the recorded notice_saved metric beside the same computation on one clock", () => {
    const points = [
      {
        name: "quiesce.event.notice_saved",
        value: 2,
        sum: 1.98,
        attributes: { eventType: "Freeze", outcome: "approved" },
      },
    ] as unknown as Point[];
    const oneClock = [
      { eventType: "Freeze", outcome: "approved", share: 0.6 },
      { eventType: "Freeze", outcome: "approved", share: 0.7 },
      { eventType: "Reboot", outcome: "approved", share: 0.1 },
    ];
    expect(renderMetrics(points, oneClock, 30)).toContain(
      "quiesce.event.notice_saved     mean 0.99 over 2  Freeze approved  (the coordinator's clock against NotBefore on the simulator's 30x clock; on one clock: 0.65 over 2, the summary's notice saved)",
    );
    // At time scale 1 the two clocks agree: the metric stands alone.
    expect(renderMetrics(points, oneClock, 1)).toMatch(/mean 0\.99 over 2 {2}Freeze approved$/m);
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
