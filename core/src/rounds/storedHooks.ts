import { eventKey } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import { isEnded } from "../lifecycle/evaluate";
import { newerHookRun } from "../model/hooks";
import type { ClusterState } from "../model/state";

/**
 * The report's hook entries that storage already held, durably, as loaded before the report was
 * applied: the readiness row has every hook run the entry reports (nothing in it is newer) and
 * was written at least `settleMs` ago; or the event ended that long ago; or it is neither tracked
 * nor in the report's document, so nothing the entry says can change anything. A hook state the
 * coordinator answered for but storage then lost (a crash before its writes were durable) is not
 * in this list, so the relay keeps reporting it at the active interval. `settleMs` is how long a
 * write may stay volatile: 0 for Azure Table Storage (a 2xx is durable), Azurite's save interval
 * for Azurite on disk.
 */
export function storedHooks(
  state: ClusterState,
  report: RelayReport,
  memberKey: string,
  now: number,
  settleMs: number,
): string[] {
  const settled = (at: number) => now - at >= settleMs;
  return report.hooks
    .filter((h) => {
      const key = eventKey(h.eventId);
      const event = state.events[key];
      if (!event) return !report.document?.Events.some((e) => eventKey(e.EventId) === key);
      if (isEnded(event)) return event.endedAt !== null && settled(event.endedAt);
      const row = state.readiness[event.key]?.[memberKey];
      if (!row || !settled(row.updatedAt)) return false;
      return (
        newerHookRun(row.drain, h.drain) === row.drain &&
        newerHookRun(row.recover, h.recover) === row.recover
      );
    })
    .map((h) => h.eventId);
}
