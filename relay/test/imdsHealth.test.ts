import { createLogger } from "@quiesce/protocol";
import { describe, expect, it } from "vitest";
import { type Harness, scheduled, useHarness } from "./support/harness";
import { waitFor } from "./support/wait";

/**
 * What the coordinator's coverage alerts and an operator's grep rely on: the relay reports its
 * failing IMDS reads (and stops once IMDS answers), and logs every event with its eventId.
 */
describe("relay operability", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });

  it("reports IMDS reads failing in a row, and reports healthy again once IMDS answers", async () => {
    const relay = await h.start();
    await waitFor("the first document", () => relay.state().document !== null);
    h.imds.rawBody = "<html>502 Bad Gateway</html>";
    const failing = await waitFor("a report with IMDS failures", () => {
      const r = h.coordinator.last();
      return r?.imds && r.imds.failuresInARow >= 1 ? r : undefined;
    });
    expect(failing.imds?.lastError).toContain("malformed");
    h.imds.rawBody = undefined;
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor(
      "a report without IMDS failures",
      () =>
        h.coordinator.last()?.imds === undefined &&
        h.coordinator.last()?.document?.Events.length === 1,
    );
  });

  it("logs each event it sees as its own line carrying the eventId", async () => {
    const lines: Array<{ msg: string; fields: Readonly<Record<string, unknown>> }> = [];
    const logger = createLogger({
      level: "info",
      sink: ({ msg, fields }) => lines.push({ msg, fields }),
    });
    await h.start({}, { logger });
    h.imds.setEvents([scheduled("E-OURS", ["vm-0"]), scheduled("E-OTHER", ["vm-1"])]);
    await waitFor("drain succeeded", () =>
      lines.some((l) => l.msg === "drain hook succeeded" && l.fields.eventId === "E-OURS"),
    );
    const seen = lines.filter((l) => l.msg === "event seen");
    expect(seen.map((l) => [l.fields.eventId, l.fields.affectsThisVm])).toEqual([
      ["E-OURS", true],
      ["E-OTHER", false],
    ]);
    expect(
      lines.filter((l) => l.msg === "drain hook started").map((l) => l.fields.eventId),
    ).toEqual(["E-OURS"]);
  });
});
