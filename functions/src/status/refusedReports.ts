import { memberKey } from "@quiesce/core";
import { ClusterName, redact, VmName } from "@quiesce/protocol";
import { z } from "zod";

/**
 * Relay reports refused at authentication (401, 403), counted by the cluster and VM their body
 * claims, so that a relay with a wrong key or token is not simply invisible (its VM would show
 * `neverRegistered`, or its relay silent). The claim is not trusted and changes nothing: it is
 * never written to Table Storage (an unauthenticated caller must not be able to cause writes or
 * grow a table, one row per name it invents), creates no member, approves nothing; it is only
 * shown next to that VM (status/views.ts) and in GET /api/alerts. In memory and per instance,
 * so bounded: at most `capacity` claims, the one refused longest ago evicted first (a caller
 * spraying names evicts real entries, which `evicted` shows, but never grows memory); a scaled
 * out app shows what the instance that answered saw. The fleet-wide count is the metric
 * `quiesce.reports.refused`, which carries no claimed name (unbounded cardinality).
 */

/** What a refused body claims; lenient (any report carries these two), read only to show it. */
export const ReportClaim = z.object({
  cluster: ClusterName,
  vm: z.object({ name: VmName }),
});
export type ReportClaim = z.infer<typeof ReportClaim>;

export interface RefusedClaim {
  cluster: string;
  /** As first claimed (its memberKey keys the entry). */
  vm: string;
  count: number;
  firstAt: number;
  lastAt: number;
  /** The last refusal's status and reason (redacted; the reasons name no credential anyway). */
  status: number;
  reason: string;
}

/** Who may look a claim up: a status read, for one cluster's VMs. */
export type RefusedLookup = (vm: string) => RefusedClaim | undefined;

/** A reason longer than this is cut: it is shown beside a VM, not a log. */
const REASON_CHARS = 200;
export const REFUSED_CAPACITY = 1000;

export class RefusedReports {
  /** In order of the last refusal, oldest first (a Map keeps insertion order). */
  private readonly claims = new Map<string, RefusedClaim>();
  /** Claims dropped to stay within capacity since this instance started. */
  evicted = 0;

  constructor(
    /** When this instance started counting (its counts begin there). */
    readonly since: number,
    private readonly capacity = REFUSED_CAPACITY,
  ) {}

  note(claim: ReportClaim, denial: { status: number; reason: string }, now: number): void {
    const key = `${claim.cluster}\n${memberKey(claim.vm.name)}`;
    const known = this.claims.get(key);
    this.claims.delete(key);
    const reason = redact(denial.reason).slice(0, REASON_CHARS);
    this.claims.set(key, {
      cluster: claim.cluster,
      vm: known?.vm ?? redact(claim.vm.name),
      count: (known?.count ?? 0) + 1,
      firstAt: known?.firstAt ?? now,
      lastAt: now,
      status: denial.status,
      reason,
    });
    const oldest = this.claims.keys().next().value;
    if (this.claims.size > this.capacity && oldest !== undefined) {
      this.claims.delete(oldest);
      this.evicted++;
    }
  }

  /** One cluster's claims by VM (memberKey). */
  lookup(cluster: string): RefusedLookup {
    return (vm) => this.claims.get(`${cluster}\n${memberKey(vm)}`);
  }

  /** Every claim, the most recently refused first. */
  all(): RefusedClaim[] {
    return [...this.claims.values()].reverse();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A blocker's words for a VM whose relay's reports are refused (neverRegistered, noLiveRelay). */
export function refusedNote(c: RefusedClaim): string {
  return `${c.count} report(s) claiming this VM were refused from ${iso(c.firstAt)} to ${iso(c.lastAt)}, last ${c.status}: ${c.reason} (this coordinator instance's count; the claim is not verified)`;
}

/** GET /api/alerts' `refusedReports`: the newest claims, at most `shown`. */
export function refusedReportsView(r: RefusedReports, shown: number) {
  const all = r.all();
  return {
    since: iso(r.since),
    tracked: all.length,
    evicted: r.evicted,
    claims: all.slice(0, shown).map((c) => ({
      cluster: c.cluster,
      vm: c.vm,
      refused: c.count,
      firstAt: iso(c.firstAt),
      lastAt: iso(c.lastAt),
      status: c.status,
      reason: c.reason,
    })),
  };
}
