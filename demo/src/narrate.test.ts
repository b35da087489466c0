import type { TimelineEntry } from "@quiesce/fabric-simulator";
import { describe, expect, it } from "vitest";
import { scopeName, timelineLine } from "./narrate";

const at = { simMs: 0, realMs: 0 };
const nameOf = (id: string) => (id === "E1" ? "relays lost" : id);

describe("timeline narration", () => {
  it("shows an acknowledge through Azure Resource Manager with its scope and caller", () => {
    const e: TimelineEntry = {
      seq: 1,
      kind: "armAcknowledge",
      scope:
        "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Compute/availabilitySets/AVSET-DB",
      principalId: "512b7a99-e86c-53e6-8d7a-3b4c39df8604",
      eventIds: ["E1"],
      outcomes: [{ eventId: "E1", outcome: "approved" }],
      at,
    };
    expect(timelineLine(e, nameOf)).toBe(
      "Azure  ← ARM acknowledge on availabilitySets/AVSET-DB from the coordinator's identity 512b7a99… (relays lost: approved)",
    );
  });

  it("shows StartRequests and document changes with a reason, nothing else", () => {
    expect(
      timelineLine(
        {
          seq: 2,
          kind: "startRequests",
          vm: "web-1",
          group: "g",
          eventIds: ["E1"],
          outcomes: [{ eventId: "E1", outcome: "approved" }],
          at,
        },
        nameOf,
      ),
    ).toBe("Azure  ← StartRequests from web-1 (relays lost: approved)");
    expect(
      timelineLine({ seq: 3, kind: "faultServed", detail: "HTTP 500", at }, nameOf),
    ).toBeNull();
    expect(scopeName("x")).toBe("x");
  });
});
