import { eventKey } from "../imds/scheduledEvents";
import type { RelayReport } from "../protocol/v1";
import { isEnded } from "./evaluate";
import { newerHookRun } from "./hooks";
import type { ClusterState } from "./state";

/**
 * The report's hook entries that storage already held, as loaded before the report was applied:
 * the readiness row has every hook run the entry reports (nothing in it is newer), or the event
 * has ended, or is neither tracked nor in the report's document, so nothing the entry says can
 * change anything. A hook state the
 * coordinator answered for but storage then lost (a crash before its writes were durable) is not
 * in this list on the next report, so the relay keeps reporting it at the active interval.
 */
export function storedHooks(state: ClusterState, report: RelayReport, memberKey: string): string[] {
  return report.hooks
    .filter((h) => {
      const key = eventKey(h.eventId);
      const event = state.events[key];
      // Not tracked and not in the document either: this report cannot attach it to anything.
      if (!event) return !report.document?.Events.some((e) => eventKey(e.EventId) === key);
      if (isEnded(event)) return true;
      const row = state.readiness[event.key]?.[memberKey];
      if (!row) return false;
      return (
        newerHookRun(row.drain, h.drain) === row.drain &&
        newerHookRun(row.recover, h.recover) === row.recover
      );
    })
    .map((h) => h.eventId);
}
