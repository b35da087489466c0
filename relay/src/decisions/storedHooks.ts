import type { RelayReport } from "@quiesce/protocol/relay";

/** Whether the report carried hook states the coordinator did not list as already stored. */
export function hooksNotStored(
  report: Pick<RelayReport, "hooks">,
  hooksStored: string[] | undefined,
): boolean {
  if (hooksStored === undefined) return false; // a 1.0 coordinator does not say
  const stored = new Set(hooksStored.map((id) => id.toLowerCase()));
  return report.hooks.some((h) => !stored.has(h.eventId.toLowerCase()));
}
