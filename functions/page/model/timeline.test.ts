import { describe, expect, it } from "vitest";
import { layoutBar, spansFromMilestones, spansFromTransitions } from "./timeline";

const t = (s: number) => new Date(Date.parse("2026-11-23T05:00:00Z") + s * 1000).toISOString();
const ms = (s: number) => Date.parse(t(s));

describe("the timeline bar", () => {
  it("runs from first sight through approval and start to the end, with NotBefore past it on the same scale", () => {
    const spans = spansFromMilestones(
      {
        phase: "Completed",
        firstSeenAt: t(0),
        approvedAt: t(10),
        startedAt: t(12),
        endedAt: t(20),
        notBefore: t(100),
      },
      ms(30),
    );
    expect(spans.map((s) => s.phase)).toEqual(["Draining", "Approving", "Started"]);
    const bar = layoutBar(spans, t(100), ms(30));
    expect(bar.segments.map((s) => [s.leftPct, s.widthPct])).toEqual([
      [0, 10],
      [10, 2],
      [12, 8],
    ]);
    expect(bar.markers).toEqual([{ label: "NotBefore", at: ms(100), leftPct: 100 }]);
  });

  it("names the waiting stretch by the current phase until approval, and grows with the clock", () => {
    const e = {
      phase: "Ready",
      firstSeenAt: t(0),
      approvedAt: null,
      startedAt: null,
      endedAt: null,
      notBefore: null,
    };
    expect(spansFromMilestones(e, ms(5))).toEqual([{ phase: "Ready", start: ms(0), end: ms(5) }]);
    expect(layoutBar(spansFromMilestones(e, ms(5)), null, ms(5)).markers).toEqual([]);
  });

  it("follows the stored transitions exactly, ending at the final phase", () => {
    const spans = spansFromTransitions(
      [
        { at: t(0), to: "Draining" },
        { at: t(4), to: "Ready" },
        { at: t(5), to: "Approving" },
        { at: t(7), to: "Started" },
        { at: t(9), to: "Recovering" },
        { at: t(11), to: "Completed" },
      ],
      t(0),
      t(11),
      ms(60),
    );
    expect(spans.map((s) => [s.phase, (s.end - s.start) / 1000])).toEqual([
      ["Draining", 4],
      ["Ready", 1],
      ["Approving", 2],
      ["Started", 2],
      ["Recovering", 2],
    ]);
  });

  it("shows an event with no first sight as an empty bar rather than failing", () => {
    const e = {
      phase: "Observed",
      firstSeenAt: null,
      approvedAt: null,
      startedAt: null,
      endedAt: null,
      notBefore: null,
    };
    expect(layoutBar(spansFromMilestones(e, ms(0)), null, ms(0)).segments).toEqual([]);
  });
});
