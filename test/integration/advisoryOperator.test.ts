import { EventDetail, OperatorAnswer } from "@quiesce/protocol/status";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  request,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * Operator actions on an advisory event (a Spot rebalance recommendation) through the real
 * operator routes on Azurite: a hold, force-approve or force-gate is refused with 409 naming why,
 * and writes nothing (no row, no history entry); a release is still taken.
 */

const azurite = useAzurite();

async function rebalanceEvent() {
  const c = await testCoordinator(azurite().connectionString);
  const ev = freezeEvent(["web-0"], {
    EventType: "SpotRebalanceRecommendation",
    DurationInSeconds: -1,
    Description: "",
  });
  const reported = await postReport(
    c,
    makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
  );
  expect(reported.body.directives).toEqual([]);
  const op = (handler: "hold" | "release" | "forceApprove" | "forceGate", body: unknown) =>
    call(
      c.handlers[handler],
      request("POST", `events/${ev.EventId}/${handler}`, {
        key: c.operatorKey,
        body,
        params: { eventId: ev.EventId },
      }),
    );
  const detail = async () =>
    EventDetail.parse(
      (
        await call(
          c.handlers.event,
          request("GET", `events/${ev.EventId}`, {
            key: c.operatorKey,
            params: { eventId: ev.EventId },
          }),
        )
      ).body,
    );
  return { c, ev, op, detail };
}

describe("operator routes on an advisory event", () => {
  it("refuse a hold, a force-approve and a force-gate with 409 naming why, and write nothing", async () => {
    const { c, ev, op, detail } = await rebalanceEvent();
    const before = await dumpTables(c.connectionString, c.prefix);
    const timeline = (await detail()).timeline;
    const refusals = [
      ["hold", await op("hold", { reason: "change freeze" })],
      ["force-approve", await op("forceApprove", { reason: "urgent", replace: true })],
      ["force-gate", await op("forceGate", { reason: "urgent", gate: "health" })],
    ] as const;
    for (const [word, r] of refusals) {
      expect(r.status).toBe(409);
      expect(r.body.error).toBe(
        `event ${ev.EventId} is a SpotRebalanceRecommendation: advisory, there is nothing to approve or hold (a ${word} would change nothing)`,
      );
    }
    expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);
    const after = await detail();
    expect(after).toMatchObject({ advisory: true, phase: "Observed", hold: null });
    expect(after.forceApprove).toBeNull();
    expect(after.timeline).toEqual(timeline);
    expect(after.timeline.some((t) => t.reason.startsWith("operator:"))).toBe(false);
  });

  it("take a release, audited like any other", async () => {
    const { op } = await rebalanceEvent();
    const released = await op("release", { reason: "nothing to hold" });
    expect(released.status).toBe(200);
    const answer = OperatorAnswer.parse(released.body);
    expect(answer).toMatchObject({ advisory: true, hold: null, replaced: null });
    expect(answer.timeline.map((t) => t.reason)).toContainEqual(
      expect.stringMatching(/^operator: released by operator-key: nothing to hold/),
    );
  });
});
