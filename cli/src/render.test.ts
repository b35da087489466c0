import { EventView } from "@quiesce/protocol/status";
import { describe, expect, it } from "vitest";
import { eventLine, renderEventDetail, renderOperatorAnswer, renderStatus } from "./render";
import { EventDetail, type OperatorAnswer } from "./statusClient";
import { ADVISORY_EVENT } from "./testFixtures";

describe("an operator action's outcome in text", () => {
  const answer = (replaced: OperatorAnswer["replaced"]) => ({ replaced });

  it("names the override an action replaced or a release removed", () => {
    const hold = {
      kind: "hold" as const,
      by: "alice",
      reason: "change freeze",
      at: "2026-11-23T04:46:06.691Z",
      expiresAt: "2026-11-23T05:46:06.691Z",
    };
    expect(renderOperatorAnswer("force-approve", "E1", answer(hold))).toBe(
      "force-approve E1: done; replaced the hold by alice (since 2026-11-23T04:46:06.691Z, until 2026-11-23T05:46:06.691Z): change freeze",
    );
    expect(
      renderOperatorAnswer("release", "E1", answer({ ...hold, kind: "forceApprove" })),
    ).toMatch(/^release E1: done; removed the force-approve by alice/);
    expect(renderOperatorAnswer("hold", "E1", answer(null))).toBe("hold E1: done");
  });
});

/** An event as the status API shows it; `advisory` left out is an older coordinator's answer. */
const view = (over: Record<string, unknown> = {}) =>
  EventView.parse({ ...ADVISORY_EVENT, ...over });

describe("an advisory event in text", () => {
  it("is marked advisory on its line of quiesce status, and a maintenance event is not", () => {
    const text = renderStatus({
      now: "2026-11-23T04:46:06.691Z",
      clusters: [],
      events: [
        view(),
        view({ eventId: "E2", eventType: "Freeze", advisory: false, waitingFor: null }),
      ],
      continuation: null,
    });
    expect(text.split("\n")).toEqual([
      "events:",
      "  web: 5B0A1D2C-0000-4E7F-8A9B-0C1D2E3F4A5B SpotRebalanceRecommendation (advisory) [web-0] Observed: advisory: Spot rebalance recommendation, nothing to approve",
      "  web: E2 Freeze [web-0] Observed: nothing",
    ]);
  });

  it("is not marked when an older coordinator's answer has no advisory field", () => {
    const { advisory: _, ...older } = view();
    expect(eventLine(EventView.parse(older), "rebalance")).toBe(
      "rebalance (5B0A1D2C…) SpotRebalanceRecommendation [web-0] Observed: advisory: Spot rebalance recommendation, nothing to approve",
    );
  });

  it("says in quiesce event that it is advisory and that overrides are refused", () => {
    const detail = EventDetail.parse({
      ...view(),
      now: "2026-11-23T04:47:00.000Z",
      readiness: [],
      timeline: [],
      timelineTruncated: false,
      unreadableRows: [],
    });
    const lines = renderEventDetail(detail).split("\n");
    expect(lines[0]).toBe(
      "5B0A1D2C-0000-4E7F-8A9B-0C1D2E3F4A5B (SpotRebalanceRecommendation, advisory, Platform) in cluster web",
    );
    expect(lines).toContain(
      "  advisory   never approved: hold, force-approve and force-gate are refused",
    );
    const freeze = renderEventDetail({
      ...detail,
      eventType: "Freeze",
      advisory: false,
      waitingFor: null,
    });
    expect(freeze).not.toContain("advisory");
    expect(freeze.split("\n")[0]).toBe(
      "5B0A1D2C-0000-4E7F-8A9B-0C1D2E3F4A5B (Freeze, Platform) in cluster web",
    );
  });
});
