import type { LoadBalancerView } from "@quiesce/fabric-simulator";
import { table } from "./table";

/**
 * Watches the fabric's load balancers for the live display and the summary: each backend's
 * admin state as it changes (the coordinator sets it `Down` before a VM counts as drained and
 * back after recover), and the simulated requests it was sent while `Down` (none, if the load
 * balancer honours it) or dropped (sent while its VM was in maintenance).
 */

export interface BackendRow {
  /** `<load balancer>/<pool>`. */
  pool: string;
  vm: string;
  adminState: string;
  routed: number;
  dropped: number;
  /** How often it was set Down, for how long in all (real seconds), and requests sent to it meanwhile. */
  timesDown: number;
  secondsDown: number;
  routedWhileDown: number;
}

interface Tracked extends BackendRow {
  downSince: number | null;
  /**
   * Routed at the first and the last look that saw it Down: what the load balancer sent it while
   * Down, as far as looks every few hundred ms can tell (a look after it came back would count
   * requests sent since, so the count stops at the last look that still saw it Down).
   */
  routedAtDown: number;
  routedLastDown: number;
  droppedSeen: number;
  droppedSaid: number;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

export class LoadBalancerWatch {
  private readonly backends = new Map<string, Tracked>();

  /** Takes the load balancers as they are now; returns what changed, as narration lines. */
  observe(views: readonly LoadBalancerView[], nowMs: number): string[] {
    const lines: string[] = [];
    for (const lb of views)
      for (const p of lb.pools)
        for (const b of p.backends) {
          const pool = `${lb.name}/${p.name}`;
          const key = `${pool}|${b.vm}`;
          const t = this.backends.get(key);
          if (!t) {
            this.backends.set(key, {
              pool,
              vm: b.vm,
              adminState: b.adminState,
              routed: b.routed,
              dropped: b.dropped,
              timesDown: b.adminState === "Down" ? 1 : 0,
              secondsDown: 0,
              routedWhileDown: 0,
              downSince: b.adminState === "Down" ? nowMs : null,
              routedAtDown: b.routed,
              routedLastDown: b.routed,
              droppedSeen: b.dropped,
              droppedSaid: b.dropped,
            });
            continue;
          }
          lines.push(...this.update(t, b, nowMs));
        }
    return lines;
  }

  private update(
    t: Tracked,
    b: LoadBalancerView["pools"][number]["backends"][number],
    nowMs: number,
  ): string[] {
    const lines: string[] = [];
    const at = `Azure  ${t.pool}: ${t.vm}`;
    if (b.adminState !== t.adminState) {
      if (b.adminState === "Down") {
        t.timesDown++;
        t.downSince = nowMs;
        t.routedAtDown = b.routed;
        t.routedLastDown = b.routed;
        lines.push(
          `${at} admin state ${t.adminState} → Down: the load balancer sends it no new requests (${b.routed} routed to it so far, ${b.dropped} dropped)`,
        );
      } else if (t.downSince !== null) {
        const sent = t.routedLastDown - t.routedAtDown;
        t.secondsDown += seconds(nowMs - t.downSince);
        t.routedWhileDown += sent;
        lines.push(
          `${at} admin state Down → ${b.adminState} after ${seconds(nowMs - t.downSince)} s: ${sent} new requests while Down, ${b.dropped} dropped; it takes traffic again`,
        );
        t.downSince = null;
      } else {
        lines.push(`${at} admin state ${t.adminState} → ${b.adminState}`);
      }
      t.adminState = b.adminState;
    }
    if (b.adminState === "Down") t.routedLastDown = b.routed;
    // Requests sent to a VM in maintenance: said once the count stops growing (the probe noticed).
    if (b.dropped > t.droppedSaid && b.dropped === t.droppedSeen) {
      lines.push(
        `${at} dropped ${b.dropped - t.droppedSaid} requests: its VM went down while the load balancer still sent it traffic (admin state ${b.adminState}, until the health probe noticed)`,
      );
      t.droppedSaid = b.dropped;
    }
    t.droppedSeen = b.dropped;
    t.routed = b.routed;
    t.dropped = b.dropped;
    return lines;
  }

  /** Every backend seen, with what it went through; one still Down counts until `nowMs`. */
  rows(nowMs: number): BackendRow[] {
    return [...this.backends.values()].map((t) => ({
      pool: t.pool,
      vm: t.vm,
      adminState: t.adminState,
      routed: t.routed,
      dropped: t.dropped,
      timesDown: t.timesDown,
      secondsDown:
        Math.round(
          (t.secondsDown + (t.downSince === null ? 0 : seconds(nowMs - t.downSince))) * 10,
        ) / 10,
      routedWhileDown:
        t.routedWhileDown + (t.downSince === null ? 0 : t.routedLastDown - t.routedAtDown),
    }));
  }
}

/** The summary's table of backends, or nothing when the topology has no load balancer. */
export function renderBackends(rows: readonly BackendRow[]): string[] {
  if (rows.length === 0) return [];
  const header = [
    "backend",
    "admin state",
    "routed",
    "dropped",
    "set Down",
    "new requests while Down",
  ];
  const body = rows.map((r) => [
    `${r.pool} ${r.vm}`,
    r.adminState,
    String(r.routed),
    String(r.dropped),
    r.timesDown === 0 ? "-" : `${r.timesDown}× (${r.secondsDown} s)`,
    r.timesDown === 0 ? "-" : String(r.routedWhileDown),
  ]);
  return table([header, ...body]).split("\n");
}
