import type { z } from "zod";

/**
 * What the relay's and the coordinator's settings errors share: one line per problem, naming the
 * setting and, inside a JSON setting, the path to the value (`QUIESCE_POLICY:
 * clusters.web.gates[0].url: not a valid URL ("htp:/x")`); and the misspelled names, so an
 * operator's typo is refused with the name that was meant instead of passing silently.
 */

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A path inside a JSON value as JavaScript writes it: `clusters.web.gates[0].url`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => {
      if (typeof key === "number") return `[${key}]`;
      const text = String(key);
      if (!IDENTIFIER.test(text)) return `[${JSON.stringify(text)}]`;
      return i === 0 ? text : `.${text}`;
    })
    .join("");
}

/** The most problems one message lists; the rest are counted. */
const MAX_LISTED = 10;

/**
 * One line per problem: the setting's name (the first element of the path), then the path inside
 * its value when it has one, then what is wrong. Problems of no one setting (the whole input) are
 * listed as they are.
 */
export function settingProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const [name, ...inner] = issue.path;
    if (name === undefined) return issue.message;
    const where = inner.length > 0 ? `${String(name)}: ${jsonPath(inner)}` : String(name);
    return `${where}: ${issue.message}`;
  });
}

/** settingProblems as one message. */
export const describeSettingsError = (error: z.ZodError): string =>
  describeSettingProblems(settingProblems(error));

/** Problems (each already naming its setting) as one message, the first ten listed. */
export function describeSettingProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED);
  const more = problems.length - listed.length;
  return [...listed, ...(more > 0 ? [`and ${more} more`] : [])].join("; ");
}

/**
 * Optimal string alignment distance: an insertion, a deletion, a substitution or a swap of two
 * neighbours each counts one (DRAIN_COMAND is one from DRAIN_COMMAND; DEBGU one from DEBUG).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  return at(a.length, b.length);
}

/**
 * How far a name may be from a known one and still be taken for a misspelling of it: one edit for
 * names up to 16 characters (QUIESCE_ and 8 more), two beyond. Closer than any two known names
 * are to each other (a test checks it of both programs' names), so the suggestion is never
 * another real setting.
 */
const tolerance = (known: string): number => (known.length <= 16 ? 1 : 2);

/**
 * The known name `name` was most likely meant to be: one differing only in case, or the nearest
 * within the tolerance; undefined when `name` is known, or near none (another program's name,
 * which is not this program's to refuse).
 */
export function likelyMeant(name: string, known: readonly string[]): string | undefined {
  if (known.includes(name)) return undefined;
  const upper = name.toUpperCase();
  let best: { known: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(upper, k.toUpperCase());
    if (distance <= tolerance(k) && (!best || distance < best.distance))
      best = { known: k, distance };
  }
  return best?.known;
}

/**
 * Names of `given` that look like misspellings of `known` ones, each as a problem naming both:
 * `QUIESCE_DRAIN_COMAND: not a setting; did you mean QUIESCE_DRAIN_COMMAND?`.
 */
export function misspelledSettings(given: Iterable<string>, known: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of given) {
    const meant = likelyMeant(name, known);
    if (meant) problems.push(`${name}: not a setting; did you mean ${meant}?`);
  }
  return problems;
}
