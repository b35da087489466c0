import { OperatorAnswer } from "@quiesce/protocol/status";
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
 * A hold and a force-approve exclude each other. Through the real operator routes: one never
 * takes the other's place silently (409 naming it, nothing written), `replace: true` does it and
 * the answer and the event's history say what it replaced.
 */

const azurite = useAzurite();

async function heldEvent() {
  const c = await testCoordinator(azurite().connectionString);
  const ev = freezeEvent(["web-0", "web-1"]);
  await postReport(c, makeReport("web-0", { incarnation: 1, events: [ev] }));
  await postReport(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
  const op = (handler: "hold" | "release" | "forceApprove", body: unknown) =>
    call(
      c.handlers[handler],
      request("POST", `events/${ev.EventId}/${handler}`, {
        key: c.operatorKey,
        body,
        params: { eventId: ev.EventId },
      }),
    );
  const held = await op("hold", { reason: "change freeze", ttlMinutes: 30 });
  expect(held.status).toBe(200);
  return { c, ev, op, heldAt: held.body.hold.at as string };
}

describe("operator routes: a hold and a force-approve never replace each other silently", () => {
  it("refuses a force-approve over a hold with 409 naming who holds it, since and until when, and writes nothing", async () => {
    const { c, op, heldAt } = await heldEvent();
    const before = await dumpTables(c.connectionString, c.prefix);
    const refused = await op("forceApprove", { reason: "urgent" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(
      `has the hold by operator-key since ${heldAt} (until ${new Date(Date.parse(heldAt) + 30 * 60_000).toISOString()}): "change freeze"; a force-approve would remove it: release it first, or repeat with replace: true`,
    );
    expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);
  });

  it("with replace: true, the force-approve takes the hold's place; the answer and the history name the hold it replaced", async () => {
    const { c, ev, op, heldAt } = await heldEvent();
    const forced = await op("forceApprove", { reason: "urgent", replace: true });
    expect(forced.status).toBe(200);
    const answer = OperatorAnswer.parse(forced.body);
    expect(answer.hold).toBeNull();
    expect(answer.forceApprove).toMatchObject({ by: "operator-key", reason: "urgent" });
    expect(answer.replaced).toEqual({
      kind: "hold",
      by: "operator-key",
      reason: "change freeze",
      at: heldAt,
      expiresAt: new Date(Date.parse(heldAt) + 30 * 60_000).toISOString(),
    });
    const replacedIn = answer.timeline.filter((t) =>
      t.reason.includes(`replaces the hold by operator-key since ${heldAt}`),
    );
    expect(replacedIn).toEqual([
      expect.objectContaining({
        kind: "transition",
        reason: expect.stringMatching(/^operator: force-approve by operator-key/),
      }),
    ]);
    // The force is in effect: the next report of a VM seeing the event approves it.
    const next = await postReport(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
    expect(next.body.directives).toEqual([expect.objectContaining({ kind: "approve" })]);
  });

  it("a hold over a force-approve is refused the same way, and release names what it removed", async () => {
    const { op } = await heldEvent();
    await op("forceApprove", { reason: "urgent", replace: true });
    const refused = await op("hold", { reason: "wait" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(
      /has the force-approve by operator-key since .*"urgent"; a hold would remove it/,
    );
    const released = await op("release", { reason: "done" });
    expect(released.status).toBe(200);
    expect(released.body.replaced).toMatchObject({ kind: "forceApprove", reason: "urgent" });
    expect(released.body.forceApprove).toBeNull();
  });

  it("takes replace only where it means something: a release with replace is a 400 naming the field", async () => {
    const { op } = await heldEvent();
    const bad = await op("release", { reason: "done", replace: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/replace/);
    const notBoolean = await op("forceApprove", { reason: "urgent", replace: "yes" });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.error).toMatch(/replace/);
  });
});
