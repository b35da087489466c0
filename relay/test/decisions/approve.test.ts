import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import { planApproval, REPOST_AFTER_MS } from "../../src/decisions/approve";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const doc: ScheduledEventsDocument = {
  DocumentIncarnation: 4,
  Events: [
    {
      EventId: "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
      EventType: "Reboot",
      Resources: ["vm-0"],
      EventStatus: "Scheduled",
      NotBefore: "Mon, 01 Jan 2026 00:15:00 GMT",
    },
    {
      EventId: "started-1",
      EventType: "Freeze",
      Resources: ["vm-0"],
      EventStatus: "Started",
      NotBefore: "",
    },
  ],
};

describe("planApproval", () => {
  it("posts exactly the directed ids still Scheduled, spelled as the document spells them", () => {
    const plan = planApproval(
      doc,
      ["c7061bac-afdc-4513-b24b-aa5f13a16123", "started-1", "gone-1"],
      [],
      T0,
    );
    expect(plan.post).toEqual(["C7061BAC-AFDC-4513-B24B-AA5F13A16123"]);
    expect(plan.skipped.map((s) => [s.eventId, s.outcome, s.detail])).toEqual([
      ["started-1", "skipped", "EventStatus is Started, not Scheduled"],
      ["gone-1", "skipped", "not in the latest document"],
    ]);
  });

  it("approves nothing before the first document", () => {
    expect(planApproval(null, ["x"], [], T0).post).toEqual([]);
  });

  it("does not post twice for an id IMDS just accepted, but does again later", () => {
    const id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    const recent = [{ eventId: id, outcome: "accepted" as const, at: new Date(T0).toISOString() }];
    expect(planApproval(doc, [id], recent, T0 + 1000).post).toEqual([]);
    expect(planApproval(doc, [id], recent, T0 + REPOST_AFTER_MS + 1).post).toEqual([id]);
  });
});
