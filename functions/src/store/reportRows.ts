import { type EventRecord, memberKey } from "@quiesce/core";

/**
 * A report point-reads at most this many rows of one partition (the readiness rows of one of its
 * events, or the members its events name); past it, one query of the partition is cheaper.
 */
export const REPORT_POINT_READS = 16;

/**
 * The readiness rows a report about event `e` needs: those of the VMs its Resources name
 * (disputed ones included: they stay in Resources), which are all the approval decision and the
 * recovers owed read, since only a VM in Resources runs a drain; and the reporter's own, the only
 * row a report writes. Every VM of a group sees the group's events and reports every active
 * interval, so reading the whole partition made each report cost as many entities as the group
 * has VMs: a 100-VM placement group alone put 2,000 entities/s on one partition, Table Storage's
 * target (bench (h)). Not read: the rows of VMs that were never named or left Resources (a VM
 * that drained and was then dropped by a newer document no longer holds the event open on a
 * report; the sweep reads every row). Null (read the partition) when the event is not stored yet
 * (rows a failed attempt left must be seen) or when so many rows are needed that one query is
 * cheaper.
 */
export function rowsAReportNeeds(e: EventRecord | undefined, reporter: string): string[] | null {
  if (!e) return null;
  const mks = new Set<string>([reporter]);
  for (const r of e.resources) mks.add(memberKey(r));
  return mks.size <= REPORT_POINT_READS ? [...mks] : null;
}
