import { describe, expect, it } from "vitest";
import { OutboxRow } from "../notify/outbox";
import { decodeEntity, type StoredEntity } from "./codec";
import previous from "./fixtures/rows-bc3f1b9.json";
import { HistoryEntity } from "./history";
import { StoredEvent, StoredMember, StoredReadiness } from "./rows";

/**
 * Rows exactly as the previous coordinator (commit bc3f1b9) wrote them to Azurite, captured
 * through its handlers (a drained event with a lease, a held one, IMDS problems, history with an
 * operator action, outbox rows after a failed delivery): they must still parse.
 */
const rows = previous as Record<string, StoredEntity[]>;
const table = (name: string) => rows[name] ?? [];
const json = (row: StoredEntity) => JSON.parse(String(row.d0)) as Record<string, unknown>;

describe("stored rows written by the previous version", () => {
  it("members, events and readiness parse with the core's schemas", () => {
    expect(table("Members")).toHaveLength(3);
    for (const row of table("Members")) expect(decodeEntity(StoredMember, row).ok).toBe(true);
    expect(table("Events")).toHaveLength(2);
    for (const row of table("Events")) expect(decodeEntity(StoredEvent, row).ok).toBe(true);
    for (const row of table("Readiness")) expect(decodeEntity(StoredReadiness, row).ok).toBe(true);
    const held = table("Events").find((r) => json(r).hold !== null);
    const parsed = held && decodeEntity(StoredEvent, held);
    expect(parsed?.ok && parsed.value.hold?.reason).toBe("change freeze");
  });

  it("history and outbox rows parse with theirs", () => {
    expect(table("History").length).toBeGreaterThan(3);
    for (const row of table("History")) expect(HistoryEntity.safeParse(row).success).toBe(true);
    expect(table("Outbox")).toHaveLength(2);
    for (const row of table("Outbox"))
      expect(OutboxRow.safeParse({ ...row, notification: json(row) }).success).toBe(true);
  });

  it("events written before the Resources guard, and members before IMDS problems, parse", () => {
    const event = json(table("Events")[0] as StoredEntity);
    for (const k of ["resourcesIncarnation", "namedAtIncarnation", "resourcesLeft"])
      delete event[k];
    delete event.resourceDisputes;
    expect(StoredEvent.safeParse(event).success).toBe(true);
    const member = json(table("Members")[0] as StoredEntity);
    delete member.imdsProblems;
    expect(StoredMember.safeParse(member).success).toBe(true);
  });

  it("keeps top-level fields a newer coordinator added, so a rewrite does not drop them", () => {
    const event = { ...json(table("Events")[0] as StoredEntity), controlPlaneAck: { at: 1 } };
    const parsed = StoredEvent.safeParse(event);
    expect(parsed.success && parsed.data.controlPlaneAck).toEqual({ at: 1 });
  });
});

describe("a row that does not parse", () => {
  const event = table("Events")[0] as StoredEntity;
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
