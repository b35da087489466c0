import { describe, expect, it } from "vitest";
import { BooleanText } from "../src";

describe("BooleanText", () => {
  it("reads true, 1, yes as true and false, 0, no as false", () => {
    for (const w of ["true", "1", "yes"]) expect(BooleanText.parse(w)).toBe(true);
    for (const w of ["false", "0", "no"]) expect(BooleanText.parse(w)).toBe(false);
  });

  it("refuses any other word instead of reading it as false", () => {
    for (const w of ["", "on", "TRUE", "y", "2"])
      expect(BooleanText.safeParse(w).success).toBe(false);
  });
});
