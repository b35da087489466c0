import { odata } from "@azure/data-tables";
import type { EventRecord, Member, Readiness } from "@quiesce/core";
import { type Dict, dict, type Result } from "@quiesce/protocol";
import { PHASES, type Phase } from "@quiesce/protocol/status";
import { z } from "zod";
import { isBudgetRow } from "./budget";
import type { StoredEntity } from "./codec";
import { HistoryEntity, type HistoryRow } from "./history";
import { type JournalEntry, readJournal, transitionRowKey } from "./journal";
import { decodeKey, encodeKey, eventPartition } from "./keys";
import { mapLimit } from "./mapLimit";
import { MemberRows } from "./memberRows";
import {
  decodeRow,
  eventOfRow,
  parseColumns,
  StoredEvent,
  StoredMember,
  StoredReadiness,
} from "./rows";
import type { Tables } from "./tables";

/**
 * What the status API reads, in proportion to the page it answers: filters and `select` keep
 * whole-table reads to a few small columns, and full rows are read only for what is shown.
 * Read-only; never on the report path.
 */

/** An event's place in the listing, from the plain columns beside its JSON (no JSON read). */
export interface EventHead {
  cluster: string;
  key: string;
  eventId: string;
  phase: Phase;
  endedAt: number | null;
  /** The column is written since the status API pages; older rows sort by their last write. */
  firstSeenAt: number;
}

/** Several point reads or queries at once, but not hundreds against one account at a time. */
const CONCURRENCY = 16;

const HEAD_COLUMNS = [
  "PartitionKey",
  "RowKey",
  "Timestamp",
  "eventId",
  "phase",
  "endedAt",
  "firstSeenAt",
];
/** The plain columns an event row carries beside its JSON (decisionWriter.ts, eventEntity). */
const EventHeadColumns = z.object({
  phase: z.enum(PHASES),
  eventId: z.string().optional(),
  /** Absent while the event has not ended. */
  endedAt: z.number().optional(),
  /** Absent in rows written before the status API paged. */
  firstSeenAt: z.number().optional(),
  timestamp: z.string().optional(),
});

export class StatusQueries {
  constructor(
    private readonly tables: Tables,
    /** The Members table across both partition schemes (memberRows.ts). */
    private readonly memberRows: MemberRows,
  ) {}

  /** Event heads, of one cluster or all, active (not ended) or ended, optionally by phase. */
  async eventHeads(opts: {
    cluster?: string;
    ended?: boolean;
    phases?: readonly Phase[];
  }): Promise<EventHead[]> {
    const parts: string[] = [];
    if (opts.cluster !== undefined) parts.push(odata`PartitionKey eq ${encodeKey(opts.cluster)}`);
    if (opts.ended !== undefined) parts.push(odata`ended eq ${opts.ended}`);
    if (opts.phases && opts.phases.length > 0)
      parts.push(`(${opts.phases.map((p) => odata`phase eq ${p}`).join(" or ")})`);
    const filter = parts.length > 0 ? parts.join(" and ") : undefined;
    const rows = await this.tables.Events.query(filter, HEAD_COLUMNS);
    return rows.flatMap((row) => {
      if (isBudgetRow(row)) return []; // budget.ts: not an event
      const head = parseColumns(this.tables.Events, EventHeadColumns, row);
      if (!head.ok) return [];
      const h = head.value;
      const parsed = h.timestamp === undefined ? Number.NaN : Date.parse(h.timestamp);
      return [
        {
          cluster: decodeKey(row.partitionKey),
          key: decodeKey(row.rowKey),
          eventId: h.eventId ?? decodeKey(row.rowKey),
          phase: h.phase,
          endedAt: h.endedAt ?? null,
          firstSeenAt: h.firstSeenAt ?? (Number.isFinite(parsed) ? parsed : 0),
        },
      ];
    });
  }

  /** Full event rows by key, for one page. Missing rows (forgotten meanwhile) are left out. */
  async events(cluster: string, keys: readonly string[]): Promise<EventRecord[]> {
    const pk = encodeKey(cluster);
    const rows = await mapLimit(keys, CONCURRENCY, (k) => this.tables.Events.get(pk, encodeKey(k)));
    return this.decoded(rows, (r) => decodeRow(this.tables.Events, StoredEvent, r, eventOfRow(r)));
  }

  async readiness(cluster: string, key: string): Promise<Dict<Readiness>> {
    const pk = eventPartition(cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`);
    const byMember = dict<Readiness>();
    for (const row of rows) {
      const r = decodeRow(this.tables.Readiness, StoredReadiness, row);
      if (r.ok) byMember[decodeKey(row.rowKey)] = r.value;
    }
    return byMember;
  }

  /**
   * Members of one cluster or of all, grouped by cluster: the one whole-partition read a
   * summary needs (counts, liveness, groups), done once per request.
   */
  async members(cluster?: string): Promise<Map<string, Member[]>> {
    const rows = await this.memberRows.query(cluster, ["PartitionKey", "RowKey", "n", "d0"]);
    const out = new Map<string, Member[]>();
    const parsed = await mapLimit(rows, CONCURRENCY, async ({ row }) => {
      // A record longer than one column (a member listing very many events) is read whole.
      const full =
        Number(row.n ?? 1) > 1 ? await this.tables.Members.get(row.partitionKey, row.rowKey) : row;
      const member = full ? decodeRow(this.tables.Members, StoredMember, full) : null;
      return member?.ok ? { cluster: MemberRows.whose(row).cluster, member: member.value } : null;
    });
    for (const p of parsed) {
      if (!p) continue;
      const list = out.get(p.cluster) ?? [];
      list.push(p.member);
      out.set(p.cluster, list);
    }
    return out;
  }

  /** Named members of one cluster by point reads (an event's few VMs). */
  async membersNamed(cluster: string, memberKeys: readonly string[]): Promise<Member[]> {
    const rows = await mapLimit(
      memberKeys,
      CONCURRENCY,
      async (mk) => (await this.memberRows.get(cluster, mk))?.row ?? null,
    );
    return this.decoded(rows, (r) => decodeRow(this.tables.Members, StoredMember, r));
  }

  /**
   * The newest `max` history rows of an event, oldest first, with the moves of its row's journal
   * whose own history rows were never written (journal.ts). Row keys start with the time, so a
   * key-only read finds where the newest `max` begin, and only those rows are read whole.
   */
  async timeline(
    cluster: string,
    key: string,
    max: number,
  ): Promise<{ rows: HistoryRow[]; truncated: boolean }> {
    const pk = eventPartition(cluster, key);
    const [keys, eventRow] = await Promise.all([
      this.tables.History.query(odata`PartitionKey eq ${pk}`, ["PartitionKey", "RowKey"]),
      this.tables.Events.get(encodeKey(cluster), encodeKey(key)),
    ]);
    const from = keys.length > max ? (keys.at(-max)?.rowKey ?? null) : null;
    const rows =
      keys.length === 0
        ? []
        : await this.tables.History.query(
            from === null
              ? odata`PartitionKey eq ${pk}`
              : odata`PartitionKey eq ${pk} and RowKey ge ${from}`,
          );
    const stored = rows.slice(-max).flatMap((r) => {
      const h = parseColumns(this.tables.History, HistoryEntity, r);
      return h.ok ? [historyRow(key, h.value)] : [];
    });
    const merged = withJournal(key, stored, readJournal(eventRow?.journal));
    return {
      rows: merged.slice(-max),
      truncated: keys.length + merged.length - stored.length > max,
    };
  }

  /** Rows found, through their schema: those missing (forgotten meanwhile) or unreadable are left out. */
  private decoded<T>(
    rows: readonly (StoredEntity | null)[],
    decode: (row: StoredEntity) => Result<T, unknown>,
  ): T[] {
    const out: T[] = [];
    for (const row of rows) {
      const r = row ? decode(row) : null;
      if (r?.ok) out.push(r.value);
    }
    return out;
  }
}

export function historyRow(key: string, r: HistoryEntity): HistoryRow {
  return {
    at: r.at,
    eventKey: key,
    kind: r.kind === "operator" ? "operator" : "transition",
    from: r.from ?? null,
    to: r.to ?? r.action ?? "",
    reason: r.reason ?? "",
    ...(r.vm !== undefined ? { vm: r.vm } : {}),
    ...(r.by !== undefined ? { by: r.by } : {}),
  };
}

/**
 * History rows and the journal's moves, each move once (rows of earlier releases have other keys:
 * a move is known by what moved), in time order; moves of one instant in the journal's order.
 */
function withJournal(
  key: string,
  stored: readonly HistoryRow[],
  journal: readonly JournalEntry[],
): HistoryRow[] {
  const moveOf = (r: Pick<JournalEntry, "at" | "from" | "to" | "reason" | "vm">) =>
    transitionRowKey(key, r);
  const order = new Map(journal.map((j, i) => [moveOf(j), i]));
  const have = new Set(
    stored.flatMap((r) =>
      r.kind === "transition" && isPhase(r.to) && (r.from === null || isPhase(r.from))
        ? [moveOf({ at: r.at, from: r.from, to: r.to, reason: r.reason, vm: r.vm })]
        : [],
    ),
  );
  const missing: HistoryRow[] = journal
    .filter((j) => !have.has(moveOf(j)))
    .map((j) => ({
      at: j.at,
      eventKey: key,
      kind: "transition",
      from: j.from,
      to: j.to,
      reason: j.reason,
      ...(j.vm !== undefined ? { vm: j.vm } : {}),
    }));
  if (missing.length === 0) return [...stored];
  const rank = (r: HistoryRow) =>
    r.kind === "transition" && isPhase(r.to) && (r.from === null || isPhase(r.from))
      ? (order.get(moveOf({ at: r.at, from: r.from, to: r.to, reason: r.reason, vm: r.vm })) ?? -1)
      : -1;
  return [...stored, ...missing]
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.at - b.r.at || rank(a.r) - rank(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

const isPhase = (p: string): p is Phase => (PHASES as readonly string[]).includes(p);
