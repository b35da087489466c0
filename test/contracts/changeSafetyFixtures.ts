import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The Change Safety fixtures (fixtures/change-safety/SOURCES.md) and the shape comparison both
 * contract tests use: the product's clients (change-safety.test.ts) and the simulator's answers
 * (change-safety-simulator.test.ts).
 */

// biome-ignore lint/suspicious/noExplicitAny: fixtures and answers are inspected field by field
export type Json = any;
const dir = join(__dirname, "fixtures", "change-safety");
export const fixture = (name: string): Json => JSON.parse(readFileSync(join(dir, name), "utf8"));
export const acquireExample = fixture("PolicyTokens_Acquire.2025-03-01.json");
export const createExample = fixture(
  "ChangeRecords_CreateOrUpdateAtSubscriptionLevel.2026-01-01-preview.json",
);
export const updateExample = fixture(
  "ChangeRecords_UpdateAtSubscriptionLevel.2026-01-01-preview.json",
);

/** A JSON value's shape: the same names and kinds of values, not the values. */
export function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return typeof v;
}
export const pick = (o: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, o[k]]));
