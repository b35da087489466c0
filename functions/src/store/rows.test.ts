import type { TableClient } from "@azure/data-tables";
import { describe, expect, it } from "vitest";
import { OutboxRow } from "../notify/outbox";
import { decodeEntity, type StoredEntity } from "./codec";
import previous from "./fixtures/rows-bc3f1b9.json";
import { HistoryEntity } from "./history";
import {
  collectUnreadable,
  decodeRow,
  eventOfRow,
  StoredEvent,
  StoredMember,
  StoredReadiness,
} from "./rows";
import { CountedTable, zeroCounts } from "./tables";

/**
 * Rows exactly as the previous coordinator (commit bc3f1b9) wrote them to Azurite, captured
 * through its handlers (a drained event with a lease, a held one, IMDS problems, history with an
 * operator action, outbox rows after a failed delivery): they must still parse.
 */
const rows = previous as Record<string, StoredEntity[]>;
const fixture = (name: string) => rows[name] ?? [];
const json = (row: StoredEntity) => JSON.parse(String(row.d0)) as Record<string, unknown>;

describe("stored rows written by the previous version", () => {
  it("members, events and readiness parse with the core's schemas", () => {
    expect(fixture("Members")).toHaveLength(3);
    for (const row of fixture("Members")) expect(decodeEntity(StoredMember, row).ok).toBe(true);
    expect(fixture("Events")).toHaveLength(2);
    for (const row of fixture("Events")) expect(decodeEntity(StoredEvent, row).ok).toBe(true);
    for (const row of fixture("Readiness"))
      expect(decodeEntity(StoredReadiness, row).ok).toBe(true);
    const held = fixture("Events").find((r) => json(r).hold !== null);
    const parsed = held && decodeEntity(StoredEvent, held);
    expect(parsed?.ok && parsed.value.hold?.reason).toBe("change freeze");
  });

  it("are rewritten as the very same JSON text (fields in the order the core builds them)", () => {
    const same = (name: string, schema: typeof StoredEvent | typeof StoredMember) => {
      for (const row of fixture(name)) {
        const r = decodeEntity(schema, row);
        expect(r.ok && JSON.stringify(r.value)).toBe(row.d0);
      }
    };
    same("Members", StoredMember);
    same("Events", StoredEvent);
    for (const row of fixture("Readiness")) {
      const r = decodeEntity(StoredReadiness, row);
      expect(r.ok && JSON.stringify(r.value)).toBe(row.d0);
    }
  });

  it("history and outbox rows parse with theirs", () => {
    expect(fixture("History").length).toBeGreaterThan(3);
    for (const row of fixture("History")) expect(HistoryEntity.safeParse(row).success).toBe(true);
    expect(fixture("Outbox")).toHaveLength(2);
    for (const row of fixture("Outbox"))
      expect(OutboxRow.safeParse({ ...row, notification: json(row) }).success).toBe(true);
  });

  it("events written before the Resources guard, and members before IMDS problems, parse", () => {
    const event = json(fixture("Events")[0] as StoredEntity);
    for (const k of ["resourcesIncarnation", "namedAtIncarnation", "resourcesLeft"])
      delete event[k];
    delete event.resourceDisputes;
    expect(StoredEvent.safeParse(event).success).toBe(true);
    const member = json(fixture("Members")[0] as StoredEntity);
    delete member.imdsProblems;
    expect(StoredMember.safeParse(member).success).toBe(true);
  });

  it("keeps top-level fields a newer coordinator added, so a rewrite does not drop them", () => {
    const event = { ...json(fixture("Events")[0] as StoredEntity), controlPlaneAck: { at: 1 } };
    const parsed = StoredEvent.safeParse(event);
    expect(parsed.success && parsed.data.controlPlaneAck).toEqual({ at: 1 });
  });
});

describe("a row that does not parse", () => {
  const event = fixture("Events")[0] as StoredEntity;
  const complaint = (row: Record<string, unknown>) => {
    const r = decodeEntity(StoredEvent, row);
    return r.ok ? "parsed" : r.error;
  };

  it("is one line naming the field, never an exception", () => {
    expect(
      complaint({ ...event, d0: event.d0?.toString().replace('"Approving"', '"Exploded"') }),
    ).toMatch(/^phase: /);
    expect(complaint({ ...event, d0: "{not json" })).toMatch(/^not JSON: /);
    expect(complaint({ ...event, n: 2 })).toBe("d1: missing");
    expect(complaint({ ...event, n: "x" })).toMatch(/^n: not a part count/);
    expect(complaint({ ...event, d0: "null" })).toMatch(/^\(body\): /);
  });
});

describe("decodeRow", () => {
  it("tells the table's observer every time, and the answer in progress once per row", async () => {
    const told: string[] = [];
    const table = new CountedTable(
      {} as TableClient, // never called: decoding reads no table
      zeroCounts(),
      (t, op, _ms, outcome) => told.push(`${t} ${op} ${outcome}`),
      "Events",
    );
    const event = fixture("Events")[0] as StoredEntity;
    // Parses, but it is another event's record: not this row's.
    const row = { ...event, d0: String(event.d0).replace('"key":"a0a0', '"key":"b0b0') };
    const { value, unreadable } = await collectUnreadable(async () => [
      decodeRow(table, StoredEvent, row, eventOfRow(row)),
      decodeRow(table, StoredEvent, row, eventOfRow(row)),
    ]);
    expect(value.map((v) => v.ok)).toEqual([false, false]);
    expect(unreadable).toEqual([
      {
        table: "Events",
        partitionKey: "web",
        rowKey: event.rowKey,
        problem: expect.stringMatching(/^key: b0b0.* is not this row's$/),
      },
    ]);
    expect(told).toEqual(["Events decode unreadable", "Events decode unreadable"]);
    expect(decodeRow(table, StoredEvent, event, eventOfRow(event)).ok).toBe(true);
    expect(told).toHaveLength(2);
  });
});
