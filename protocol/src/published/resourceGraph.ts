import { z } from "zod";
import { describeZodError, type Result } from "../result";
import {
  isScheduledEventType,
  type PublishedObservation,
  PublishedScheduledEvent,
  parseScheduledEventId,
} from "./scheduledEvent";

/**
 * Azure Resource Graph's `maintenanceresources` table, the backstop for events Event Grid missed
 * (preview, same opt-in; azure-compute-docs `scheduled-events-resource-graph.md`, 05/01/2026:
 * "Every time a scheduled event changes state it creates an update its entry in the table").
 * Queried with `POST {ARM}/providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01`
 * and a body of `{subscriptions, query, options: {resultFormat: "objectArray", $top, $skipToken}}`;
 * the answer is a ResourceQueryResult: `totalRecords`, `count`, `resultTruncated`, `$skipToken`
 * when there is a next page, and `data` (learn.microsoft.com, Resource Graph REST "Resources";
 * "Working with large Azure resource data sets": 1,000 rows per page by default).
 */

export const RESOURCE_GRAPH_API_VERSION = "2022-10-01";

/** The query: every scheduled event of the subscriptions; the caller keeps its clusters' scopes. */
export const SCHEDULED_EVENTS_QUERY =
  "maintenanceresources | where type =~ 'microsoft.maintenance/scheduledevents' | project id, name, type, properties";

export function resourceGraphRequest(
  subscriptions: readonly string[],
  opts: { top?: number; skipToken?: string } = {},
): Record<string, unknown> {
  return {
    subscriptions: [...subscriptions],
    query: SCHEDULED_EVENTS_QUERY,
    options: {
      resultFormat: "objectArray",
      $top: opts.top ?? 1000,
      ...(opts.skipToken ? { $skipToken: opts.skipToken } : {}),
    },
  };
}

const Row = z.looseObject({
  id: z.string().min(1).max(1024),
  type: z.string().max(256),
  properties: z.unknown(),
});

export const ResourceQueryResult = z.looseObject({
  totalRecords: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
  resultTruncated: z.enum(["true", "false"]).optional(),
  $skipToken: z.string().max(4096).optional(),
  data: z.array(z.unknown()).max(5000),
});

export interface ResourceGraphPage {
  observations: PublishedObservation[];
  /** Rows of other types or shapes. */
  ignored: number;
  /** Scheduled-event rows whose properties did not parse: the first problem of each. */
  problems: string[];
  /** Pass to the next request when present (another page). */
  skipToken: string | null;
}

export function parseResourceGraphPage(body: unknown): Result<ResourceGraphPage> {
  const page = ResourceQueryResult.safeParse(body);
  if (!page.success)
    return { ok: false, error: `not a Resource Graph result: ${describeZodError(page.error)}` };
  const observations: PublishedObservation[] = [];
  const problems: string[] = [];
  let ignored = 0;
  for (const raw of page.data.data) {
    const row = Row.safeParse(raw);
    const located = row.success ? parseScheduledEventId(row.data.id) : null;
    if (!row.success || !located || !isScheduledEventType(row.data.type)) {
      ignored++;
      continue;
    }
    const event = PublishedScheduledEvent.safeParse(row.data.properties);
    if (!event.success) {
      problems.push(`${row.data.id}: ${describeZodError(event.error)}`);
      continue;
    }
    observations.push({
      source: "resourceGraph",
      scope: located.scope,
      event: event.data,
      observedAt: null,
      deliveryId: null,
    });
  }
  return {
    ok: true,
    value: { observations, ignored, problems, skipToken: page.data.$skipToken ?? null },
  };
}
