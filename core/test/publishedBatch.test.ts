import { published, T0 } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyPublished, applyPublishedBatch, emptyClusterState } from "../src";
import { policy } from "./fixtures";

/**
 * A delivery's observations of one cluster applied as one decision (core/src/rounds/publishedBatch.ts):
 * the same state and transitions as applying them one by one, and which of them changed anything.
 */
const A = "9F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B";
const B = "0B0A6C4E-7D1E-4D4F-9A53-2B8F1D0C9E11";

describe("a batch of published observations", () => {
  it("decides what applying them one by one decides, and tells which changed something", () => {
    const p = policy();
    const batch = [
      published("Scheduled", ["web-0", "web-1"], { eventId: A }),
      published("Scheduled", ["web-2"], { eventId: B }),
      published("Scheduled", ["web-0", "web-1"], { eventId: A }), // a duplicate
      published("Started", ["web-2"], { eventId: B }),
    ];
    let state = emptyClusterState("web");
    const transitions = [];
    for (const o of batch) {
      const d = applyPublished(state, o, T0, p);
      transitions.push(...d.transitions);
      state = d.state;
    }
    const { decision, changed } = applyPublishedBatch(emptyClusterState("web"), batch, T0, p);
    expect(decision.state).toEqual(state);
    expect(decision.transitions).toEqual(transitions);
    expect(changed).toEqual([true, true, false, true]);
    expect(decision.forget).toEqual([]);
  });

  it("returns the very same state when nothing changed (the shell then writes nothing)", () => {
    const p = policy();
    const once = applyPublishedBatch(
      emptyClusterState("web"),
      [published("Scheduled", ["web-0"])],
      T0,
      p,
    );
    const again = applyPublishedBatch(
      once.decision.state,
      [published("Scheduled", ["web-0"])],
      T0,
      p,
    );
    expect(again.decision.state).toBe(once.decision.state);
    expect(again.changed).toEqual([false]);
  });
});
