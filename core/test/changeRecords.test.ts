import { withEntry } from "@quiesce/protocol";
import { report, scheduled, started } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  CHANGE_RECORD_MAX_ATTEMPTS,
  type ChangeRecordOutcome,
  changeRecordOutcome,
  claimChangeRecord,
  dueChangeRecords,
  type EventRecord,
  recordChangeRecord,
} from "../src";
import { Sim } from "./fixtures";

/**
 * An event's Azure Change Safety change record (core/src/lifecycle/changeRecords.ts): opened once per
 * event by a claimed call, closed once it ended with how it ended, each call claimed by one
 * instance only, a crashed claim taken again after its grace, and failures bounded.
 */
const id = "9A0B1C2D-3E4F-4A5B-8C6D-7E8F9A0B1C2D";
const key = id.toLowerCase();
const RECORD =
  "/subscriptions/s/resourceGroups/r/providers/Microsoft.ChangeSafety/changeRecords/quiesce-web-x";

function seen(): Sim {
  const s = new Sim();
  s.send(report("vm0", 1, [scheduled(id, ["vm0", "vm1"])]));
  return s;
}

/** Claims and records one call, as the shell does; returns the claim's state for checks. */
function call(s: Sim, kind: "open" | "close", outcome: ChangeRecordOutcome) {
  const [due] = dueChangeRecords(s.state, s.now);
  if (!due || due.kind !== kind) throw new Error(`no ${kind} due`);
  const claimed = claimChangeRecord(s.state, key, kind, due.attempt, s.now);
  if (!claimed) throw new Error("claim refused");
  s.state = claimed.state;
  const recorded = recordChangeRecord(s.state, key, kind, due.attempt, outcome, s.now);
  if (!recorded) throw new Error("outcome refused");
  s.state = recorded.state;
  return recorded.transitions.map((t) => t.reason).join("\n");
}

/** The event ended `phase`, approved (by a relay) or not. */
function end(s: Sim, phase: EventRecord["phase"], approved = true) {
  const e = s.event(id);
  const approval = approved ? { approvedAt: s.now, approvalRule: "allDrained" as const } : {};
  s.state = {
    ...s.state,
    events: withEntry(s.state.events, key, { ...e, ...approval, phase, endedAt: s.now }),
  };
}

describe("change records", () => {
  it("opens one record for a seen event, once: a second claim of the same call is refused", () => {
    const s = seen();
    expect(dueChangeRecords(s.state, s.now).map((d) => [d.kind, d.attempt])).toEqual([["open", 1]]);
    const first = claimChangeRecord(s.state, key, "open", 1, s.now);
    expect(first).not.toBeNull();
    if (!first) return;
    // Another instance read the same state and claims the same call: its commit would conflict,
    // and on its re-read the call is no longer due.
    expect(claimChangeRecord(first.state, key, "open", 1, s.now)).toBeNull();
    expect(dueChangeRecords(first.state, s.now)).toEqual([]);
    s.state = first.state;
    const reason = recordChangeRecord(
      s.state,
      key,
      "open",
      1,
      { ok: true, id: RECORD, status: "NotApplicable" },
      s.now,
    );
    s.state = reason?.state ?? s.state;
    expect(s.event(id).changeRecord).toMatchObject({ id: RECORD, step: "open", claimedAt: null });
    expect(reason?.transitions[0]?.reason).toContain(RECORD);
    expect(dueChangeRecords(s.state, s.now + 3_600_000)).toEqual([]);
  });

  it("takes a crashed claim again only after its grace, as the next attempt", () => {
    const s = seen();
    const claimed = claimChangeRecord(s.state, key, "open", 1, s.now);
    if (!claimed) throw new Error("claim refused");
    s.state = claimed.state;
    expect(dueChangeRecords(s.state, s.now + 59_000)).toEqual([]);
    expect(dueChangeRecords(s.state, s.now + 60_000).map((d) => d.attempt)).toEqual([2]);
    // The crashed call's answer, arriving late, is not this claim's any more once retaken.
    const retaken = claimChangeRecord(s.state, key, "open", 2, s.now + 60_000);
    expect(
      retaken &&
        recordChangeRecord(
          retaken.state,
          key,
          "open",
          1,
          { ok: true, id: RECORD, status: null },
          s.now,
        ),
    ).toBeNull();
  });

  it("retries a refused open at each sweep and gives up, visibly, after the last attempt", () => {
    const s = seen();
    for (let n = 1; n <= CHANGE_RECORD_MAX_ATTEMPTS; n++) {
      const reason = call(s, "open", {
        ok: false,
        failure: "ARM 403 AuthorizationFailed: no role",
      });
      expect(reason).toContain(`attempt ${n} of ${CHANGE_RECORD_MAX_ATTEMPTS}`);
    }
    expect(s.event(id).changeRecord).toMatchObject({
      step: "gaveUp",
      lastError: "ARM 403 AuthorizationFailed: no role",
    });
    expect(dueChangeRecords(s.state, s.now + 3_600_000)).toEqual([]);
  });

  it.each([
    ["Completed", true, "Completed"],
    ["Cancelled", false, "Cancelled"],
    ["Completed", false, "Failed"],
  ] as const)(
    "closes the record of an event that ended %s (approved: %s) as %s",
    (phase, approved, outcome) => {
      const s = seen();
      call(s, "open", { ok: true, id: RECORD, status: "NotApplicable" });
      end(s, phase, approved);
      const due = dueChangeRecords(s.state, s.now);
      expect(due.map((d) => [d.kind, d.attempt])).toEqual([["close", 1]]);
      expect(changeRecordOutcome(s.event(id)).comments).toMatch(new RegExp(`^${outcome}:`));
      const reason = call(s, "close", { ok: true, id: RECORD, status: "NotApplicable" });
      expect(reason).toBe(`change record closed as ${outcome}: ${RECORD}`);
      expect(s.event(id).changeRecord).toMatchObject({ step: "closed", outcome });
      expect(dueChangeRecords(s.state, s.now)).toEqual([]);
    },
  );

  it("opens none for an event first seen Started, nor closes a record that was never made", () => {
    const s = new Sim();
    s.send(report("vm0", 1, [started(scheduled(id, ["vm0"]))]));
    expect(dueChangeRecords(s.state, s.now)).toEqual([]);
    const t = seen();
    const claimed = claimChangeRecord(t.state, key, "open", 1, t.now);
    t.state = claimed?.state ?? t.state;
    end(t, "Cancelled");
    expect(dueChangeRecords(t.state, t.now + 3_600_000)).toEqual([]);
  });
});
