import { describe, expect, it } from "vitest";
import {
  parseResourceGraphPage,
  resourceGraphRequest,
  SCHEDULED_EVENTS_QUERY,
} from "../../src/published";

/** Resource Graph pages shaped as its REST reference and the scheduled-events doc show them. */

const SUB = "00000000-0000-4000-8000-000000000000";
const row = (status: string, eventId = "E1", kind = "availabilitySets/as-web") => ({
  id: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/${kind}/providers/microsoft.maintenance/scheduledevents/${eventId}`,
  name: eventId,
  type: "microsoft.maintenance/scheduledevents",
  properties: {
    EventId: eventId,
    EventType: "Reboot",
    ResourceType: "VirtualMachine",
    Resources: ["web-0", "web-1"],
    EventStatus: status,
    NotBefore: "Mon, 19 Sep 2025 18:29:47 GMT",
    Description: "Host server is undergoing maintenance.",
    EventSource: "Platform",
    DurationInSeconds: 30,
  },
});

describe("a Resource Graph page of scheduled events", () => {
  it("yields each event with its scope, and the token of the next page", () => {
    const p = parseResourceGraphPage({
      totalRecords: 3,
      count: 2,
      resultTruncated: "false",
      $skipToken: "ew0KICAiJGlkIjogIjEiLA0K",
      data: [row("Scheduled"), row("Canceled", "E2", "virtualMachines/vm-9")],
      facets: [],
    });
    if (!p.ok) throw new Error(p.error);
    expect(
      p.value.observations.map((o) => [o.event.EventId, o.event.EventStatus, o.scope.kind]),
    ).toEqual([
      ["E1", "Scheduled", "availabilitySets"],
      ["E2", "Canceled", "virtualMachines"],
    ]);
    expect(p.value.observations[0]?.source).toBe("resourceGraph");
    expect(p.value.skipToken).toBe("ew0KICAiJGlkIjogIjEiLA0K");
  });

  it("ignores other rows and reports one that does not parse, keeping the rest", () => {
    const broken = row("Exploded", "E3");
    const p = parseResourceGraphPage({
      totalRecords: 3,
      count: 3,
      data: [
        { id: "/subscriptions/x", type: "microsoft.maintenance/updates", properties: {} },
        broken,
        row("Started"),
      ],
    });
    if (!p.ok) throw new Error(p.error);
    expect(p.value.ignored).toBe(1);
    expect(p.value.problems[0]).toContain("EventStatus");
    expect(p.value.observations).toHaveLength(1);
    expect(p.value.skipToken).toBeNull();
  });

  it("refuses an answer that is not a query result, naming the field", () => {
    const p = parseResourceGraphPage({ count: 1, data: "rows" });
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.error).toMatch(/^not a Resource Graph result: .*totalRecords/);
  });
});

describe("the Resource Graph request", () => {
  it("asks for objects, a page at a time, continuing from a token", () => {
    expect(resourceGraphRequest([SUB], { skipToken: "t" })).toEqual({
      subscriptions: [SUB],
      query: SCHEDULED_EVENTS_QUERY,
      options: { resultFormat: "objectArray", $top: 1000, $skipToken: "t" },
    });
  });
});
