import { parseEventGridDelivery, parseResourceGraphPage } from "@quiesce/protocol/published";
import { describe, expect, it } from "vitest";
import { cancelEvent, createFabric, scheduleEvent } from "../model/fabric";
import type { FabricState, Instant, Outcome, Transition } from "../model/types";
import { defaultTopology } from "../topology/topologies";
import { eventGridEvent, publishedStatus, resourceGraphRows } from "./published";

/**
 * What the fabric publishes off the VM parses as the product's intake reads it (the simulator
 * speaks the documented shapes; the product does not know it is talking to a simulator).
 */

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const at = (seconds: number): Instant => ({ simMs: T0 + seconds * 1000, realMs: 0 });

function must<T>(o: Outcome<T>): Transition<T> {
  if (!o.ok) throw new Error(o.error.message);
  return o.value;
}

function fabricWithEvents(): FabricState {
  let s = must(createFabric(defaultTopology())).value;
  const schedule = (eventId: string, group: string, startImmediately = false) => {
    s = must(
      scheduleEvent(
        s,
        { eventId, eventType: "Reboot", eventSource: "Platform", startImmediately, group },
        at(0),
      ),
    ).state;
  };
  schedule("E-AS", "avset-web");
  schedule("E-SS", "vmss-api-pg0", true);
  schedule("E-GONE", "avset-db");
  s = must(cancelEvent(s, "E-GONE", at(5))).state;
  return s;
}

describe("the fabric's events off the VM", () => {
  it("reach the intake as Event Grid deliveries: scoped to the availability set or the scale set, statuses Scheduled, Started and Canceled", () => {
    const s = fabricWithEvents();
    const events = [...s.active, ...s.past];
    const delivery = events.map((e, i) => eventGridEvent(s, e, `delivery-${i}`));
    const parsed = parseEventGridDelivery(delivery);
    if (!parsed.ok || parsed.value.kind !== "events") throw new Error("not events");
    expect(parsed.value.rejected).toEqual([]);
    const seen = Object.fromEntries(
      parsed.value.observations.map((o) => [
        o.event.EventId,
        [o.event.EventStatus, o.scope.kind, o.scope.name],
      ]),
    );
    expect(seen).toEqual({
      "E-AS": ["Scheduled", "availabilitySets", "avset-web"],
      "E-SS": ["Started", "virtualMachineScaleSets", "vmss-api"],
      "E-GONE": ["Canceled", "availabilitySets", "avset-db"],
    });
    const cancelled = parsed.value.observations.find((o) => o.event.EventId === "E-GONE");
    expect(cancelled?.observedAt).toBe(T0 + 5_000);
  });

  it("are Resource Graph rows the backstop parses, past events included", () => {
    const s = fabricWithEvents();
    const rows = resourceGraphRows(s);
    const page = parseResourceGraphPage({
      totalRecords: rows.length,
      count: rows.length,
      data: rows,
    });
    if (!page.ok) throw new Error(page.error);
    expect(page.value.observations.map((o) => o.event.EventId).sort()).toEqual([
      "E-AS",
      "E-GONE",
      "E-SS",
    ]);
    expect(page.value.ignored).toBe(0);
  });

  it("call an event that ran its course Completed and one removed while Scheduled Canceled", () => {
    const s = fabricWithEvents();
    const gone = s.past[0];
    if (!gone) throw new Error("no past event");
    expect(publishedStatus(gone)).toBe("Canceled");
    expect(publishedStatus({ ...gone, removalCause: "completed" })).toBe("Completed");
  });
});
