import { z } from "zod";

/** The words a yes/no setting may be written with; any other is refused, never read as "no". */
export const TRUE_WORDS = ["true", "1", "yes"] as const;
export const FALSE_WORDS = ["false", "0", "no"] as const;

/**
 * A yes/no setting given as text (an environment variable, an app setting): "true", "1" or "yes";
 * "false", "0" or "no". The relay and the coordinator read every boolean setting with it, so the
 * same word means the same thing on both sides; a typo is an error naming the setting.
 */
export const BooleanText = z
  .enum([...TRUE_WORDS, ...FALSE_WORDS])
  .transform((word) => (TRUE_WORDS as readonly string[]).includes(word));
