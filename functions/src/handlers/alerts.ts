import { coverage } from "@quiesce/core";
import { attestationMode } from "../attestation";
import { coverageStates } from "../status/coverageStates";
import { refusedReportsView } from "../status/refusedReports";
import { iso } from "../status/views";
import { collectUnreadable, withUnreadableRows } from "../store";
import { type Handler, withAuth } from "./compose";
import type { HandlerDeps } from "./deps";
import { json } from "./http";

const SHOWN = 50;

/**
 * GET /api/alerts: coverage of every cluster (silent relays, groups with no live relay, VMs an
 * event names that never registered) and the notification outbox: what is pending, and what
 * was dropped after its deadline, with the last error (never a webhook URL); and the reports this
 * instance refused at authentication, by the VM they claim (status/refusedReports.ts).
 */
export function alertsHandler(deps: HandlerDeps): Handler {
  return withAuth(deps, "reader", async () => {
    const now = deps.clock.now();
    const {
      value: [states, undelivered],
      unreadable,
    } = await collectUnreadable(() =>
      Promise.all([coverageStates(deps, now), deps.notifier.undelivered()]),
    );
    const views = [];
    for (const state of states) {
      const policy = deps.policies.for(state.cluster);
      const c = coverage(state, now, policy);
      views.push({
        cluster: state.cluster,
        members: c.members,
        live: c.live,
        silent: c.silent.map((s) => ({
          vm: s.vm,
          lastSeenAt: iso(s.lastSeenAt),
          silentSeconds: Math.round((now - s.lastSeenAt) / 1000),
        })),
        uncoveredGroups: c.uncovered.map((g) => ({ kind: g.kind, id: g.id, members: g.members })),
        groups: c.groups.map((g) => ({ kind: g.kind, id: g.id, members: g.members, live: g.live })),
        unregistered: c.unregistered.map((u) => ({ eventId: u.eventId, vms: u.vms })),
        // Attestation off for the cluster: what its members' rows say of it is not news.
        unattested:
          attestationMode(deps.options, policy) === "off"
            ? []
            : c.unattested.map((u) => ({ ...u, since: iso(u.since) })),
      });
    }
    const rows = undelivered.sort((a, b) => b.createdAt - a.createdAt);
    const body = {
      now: iso(now),
      clusters: views,
      refusedReports: refusedReportsView(deps.refusedReports, SHOWN),
      notifications: {
        sinks: deps.notifier.sinksConfigured(),
        pending: rows.filter((r) => r.state === "pending").length,
        dropped: rows.filter((r) => r.state === "dropped").length,
        undelivered: rows.slice(0, SHOWN).map((r) => ({
          state: r.state,
          cluster: r.cluster,
          kind: r.kind,
          sink: r.sink,
          title: r.notification.title,
          ...(r.notification.eventId ? { eventId: r.notification.eventId } : {}),
          attempts: r.attempts,
          queuedAt: iso(r.createdAt),
          ...(r.state === "pending" ? { nextAttemptAt: iso(r.dueAt) } : {}),
          lastError: r.lastError || null,
        })),
      },
    };
    return json(200, withUnreadableRows(body, unreadable));
  });
}
