import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeKey, encodeKey, eventPartition, KeyTooLongError } from "./keys";

// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point
const FORBIDDEN = /[/\\#?\u0000-\u001f\u007f-\u009f]/;

describe("table key encoding", () => {
  it.each([
    "web-0",
    "a/b\\c#d?e",
    "it's",
    "100%",
    "%41",
    "tab\there\u0000nul\u007fdel\u009fapc",
    "Ünïcödé-名前-🙂",
    "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-1",
    "lone\ud800surrogate",
    "\udc00low-first",
    ",leading-comma,and-others",
    "line\u2028and\u2029paragraph",
  ])("round-trips %j with no forbidden character left", (name) => {
    const key = encodeKey(name);
    expect(key).not.toMatch(FORBIDDEN);
    expect(key).not.toContain("'");
    expect(decodeKey(key)).toBe(name);
  });

  it("round-trips any string and never emits a forbidden character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
        const key = encodeKey(s);
        expect(FORBIDDEN.test(key)).toBe(false);
        expect(decodeKey(key)).toBe(s);
      }),
    );
  });

  it("never emits what Azurite's transaction parser loses: U+2028, U+2029, a leading comma", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(",", "\u2028", "\u2029", "a", " ", "%"), { maxLength: 12 }),
        (chars) => {
          const key = encodeKey(chars.join(""));
          expect(key).not.toMatch(/^,|[\u2028\u2029]/);
          expect(decodeKey(key)).toBe(chars.join(""));
        },
      ),
    );
    expect(encodeKey(",a,b")).toBe("%2Ca,b");
    expect(encodeKey("a\u2028b\u2029")).toBe("a%u2028b%u2029");
  });

  it("refuses a key longer than 512 UTF-16 code units once encoded (Table Storage's 1 KiB of UTF-16)", () => {
    expect(() => encodeKey("a".repeat(512))).not.toThrow();
    expect(() => encodeKey("🙂".repeat(256))).not.toThrow();
    expect(() => encodeKey("a".repeat(513))).toThrow(KeyTooLongError);
    expect(() => encodeKey("🙂".repeat(257))).toThrow(KeyTooLongError);
    expect(() => encodeKey("#".repeat(171))).toThrow(KeyTooLongError); // 513 once escaped
  });

  it("refuses an event partition (cluster|eventKey) over the limit", () => {
    expect(() => eventPartition("c".repeat(63), "e".repeat(448))).not.toThrow();
    expect(() => eventPartition("c".repeat(63), "e".repeat(449))).toThrow(KeyTooLongError);
  });
});
