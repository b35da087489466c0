import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decodeEntity, RecordTooLargeError, toEntity } from "./codec";

const anyRecord = z.record(z.string(), z.unknown());

describe("entity codec", () => {
  it("splits a long record across d0..dN and reassembles it", () => {
    const record = {
      resources: Array.from(
        { length: 1000 },
        (_, i) => `vm-with-a-long-name-${i}-${"x".repeat(40)}`,
      ),
    };
    const entity = toEntity("pk", "rk", record, { phase: "Draining", endedAt: null });
    expect(entity.n).toBeGreaterThan(1);
    for (let i = 0; i < (entity.n as number); i++)
      expect((entity[`d${i}`] as string).length).toBeLessThanOrEqual(30_000);
    expect(entity.phase).toBe("Draining");
    expect("endedAt" in entity).toBe(false); // Table Storage has no nulls: absent instead
    expect(decodeEntity(anyRecord, entity)).toEqual({ ok: true, value: record });
  });

  it("never cuts a surrogate pair in half", () => {
    const record = { s: `${"a".repeat(29_990)}${"🙂".repeat(20)}` };
    const entity = toEntity("pk", "rk", record);
    for (let i = 0; i < (entity.n as number); i++) {
      const part = entity[`d${i}`] as string;
      expect(
        part.charCodeAt(part.length - 1) >= 0xd800 && part.charCodeAt(part.length - 1) <= 0xdbff,
      ).toBe(false);
    }
    expect(decodeEntity(anyRecord, entity)).toEqual({ ok: true, value: record });
  });

  it("refuses a record too large for one entity", () => {
    expect(() => toEntity("pk", "rk", { s: "x".repeat(1_000_000) })).toThrow(RecordTooLargeError);
  });
});
