import { createHash } from "node:crypto";
import type { Transition } from "@quiesce/core";
import { PHASES } from "@quiesce/protocol/status";
import { z } from "zod";

/**
 * An event row's journal: its newest transitions, in a column of the very write that makes the
 * phase they lead to. History rows can only be written after the decision's rows (a transition
 * is true only once its row is), so a commit that stops between the two (a lost race on another
 * row of the same decision, a 5xx, a timeout, a crash) would lose them for good: the resend finds
 * the phase already there and decides no transition. Readers merge the journal into the history
 * (statusQueries.ts, `timeline`), and forgetting an event copies its journal there first.
 */
export const JOURNAL_LENGTH = 16;
/** A plain string column holds 32 K UTF-16 code units; the oldest entries go first. */
const MAX_JOURNAL_CHARS = 30_000;
const MAX_REASON_CHARS = 1_000;

const JournalEntry = z
  .object({
    at: z.number(),
    from: z.enum(PHASES).nullable(),
    to: z.enum(PHASES),
    reason: z.string(),
    vm: z.string().optional(),
  })
  .strict();
export type JournalEntry = z.infer<typeof JournalEntry>;
const Journal = z.array(JournalEntry);

/** The column as read: an absent or unreadable journal is an empty one (rows before it existed). */
export function readJournal(column: unknown): JournalEntry[] {
  if (typeof column !== "string") return [];
  try {
    const parsed = Journal.safeParse(JSON.parse(column));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

const entryOf = (t: Transition): JournalEntry => ({
  at: t.at,
  from: t.from,
  to: t.to,
  reason: t.reason.slice(0, MAX_REASON_CHARS),
  ...(t.vm !== undefined ? { vm: t.vm } : {}),
});

/** The column to write: the journal as read, then this round's transitions of the event. */
export function nextJournal(read: unknown, transitions: readonly Transition[]): string | undefined {
  const entries = [...readJournal(read), ...transitions.map(entryOf)].slice(-JOURNAL_LENGTH);
  while (entries.length > 0) {
    const text = JSON.stringify(entries);
    if (text.length <= MAX_JOURNAL_CHARS) return text;
    entries.shift();
  }
  return undefined;
}

/**
 * The history row key of one move: time first (a partition reads in time order), then a digest
 * of what moved, so every writer of the same move (the commit, its resend, the copy made when
 * the event is forgotten) writes the same row, and a reader can tell a journal entry it already has.
 */
export function transitionRowKey(
  eventKey: string,
  t: Pick<JournalEntry, "at" | "from" | "to" | "reason" | "vm">,
): string {
  const digest = createHash("sha256")
    .update(
      JSON.stringify([eventKey, t.from, t.to, t.reason.slice(0, MAX_REASON_CHARS), t.vm ?? null]),
    )
    .digest("hex")
    .slice(0, 20);
  return `${String(t.at).padStart(15, "0")}-t-${digest}`;
}
