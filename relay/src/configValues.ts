import { BooleanText } from "@quiesce/protocol";
import { z } from "zod";

/**
 * The relay's settings that are not text, read strictly (config.ts names the settings). An
 * environment variable is always text; a config file's value must be of the setting's JSON type,
 * or the text its environment variable would hold ("600" as well as 600, "true" as well as
 * true). Nothing else is read into one: `true` is not 1 second, nor `[5]` 5, as zod's coerce
 * would have them.
 */

/** What was given instead, for the error: its JSON type and (short) text. */
const given = (v: unknown): string => {
  if (v === null || v === undefined) return String(v);
  const text = JSON.stringify(v) ?? String(v);
  const kind = Array.isArray(v)
    ? "an array"
    : typeof v === "object"
      ? "an object"
      : `a ${typeof v}`;
  return `${kind} (${text.length > 40 ? `${text.slice(0, 37)}...` : text})`;
};

/** A yes/no setting: a JSON boolean, or BooleanText's words (true/1/yes, false/0/no). */
export const flag = z.unknown().transform((v, ctx) => {
  if (typeof v === "boolean") return v;
  const word = BooleanText.safeParse(v);
  if (word.success) return word.data;
  ctx.addIssue({
    code: "custom",
    message: `expected true or false (a JSON boolean, or the text true, 1, yes, false, 0 or no), got ${given(v)}`,
  });
  return z.NEVER;
});

/** A whole number: a JSON number, or text of digits. */
export const int = (min: number, max: number) =>
  z
    .unknown()
    .transform((v, ctx) => {
      const n =
        typeof v === "number"
          ? v
          : typeof v === "string" && /^\s*-?\d+\s*$/.test(v)
            ? Number(v)
            : NaN;
      if (Number.isInteger(n)) return n;
      ctx.addIssue({
        code: "custom",
        message: `expected a whole number ${min}-${max} (a JSON number, or text of digits), got ${given(v)}`,
      });
      return z.NEVER;
    })
    .pipe(z.number().min(min).max(max));
