import { createHash, randomUUID } from "node:crypto";
import { SCHEDULED_EVENTS_QUERY } from "@quiesce/protocol/published";
import { z } from "zod";
import {
  type MaintenanceResource,
  publishedScopeId,
  resourceGraphRows,
} from "../../maintenance/published";
import type { FabricState } from "../../model/types";
import { publishesOffVm } from "../../topology/scheduledEventsPolicy";
import type { ArmAnswer } from "../errors";
import { covers } from "../ids";
import { holdsWithin } from "../rbac";
import { quotaHeaders } from "../resourceGraphQuota";
import type { ArmCall } from "./call";

/**
 * Azure Resource Graph's query, `POST /providers/Microsoft.ResourceGraph/resources` (operation
 * `Resources`, azure-rest-api-specs `resourcegraph/.../stable/2022-10-01/resourcegraph.json`),
 * for the one query the product sends: SCHEDULED_EVENTS_QUERY over `maintenanceresources`, the
 * rows `resourceGraphRows` renders. Every answer carries the caller's quota headers; a 429 says
 * `RateLimiting` with no Retry-After (Azure documents the quota headers, not a Retry-After).
 *
 * Access, after Azure's overview ("Permissions in Azure Resource Graph"): a request none of whose
 * subscriptions the caller holds `Microsoft.ResourceGraph/resources/read` in is refused (403);
 * otherwise the answer holds only the rows of the subscriptions it may query that it may read,
 * without saying it is partial. Which read Azure checks for a scheduled-event row is not
 * documented (Microsoft.Maintenance lists no `scheduledevents/read`): the simulator checks the
 * read of the resource the event is scoped to (`Microsoft.Compute/{availabilitySets|
 * virtualMachineScaleSets|virtualMachines}/read`). Codes Azure does not document are the
 * simulator's choice: the 403's `AuthorizationFailed`, and the 400 details
 * `InvalidRequestContent` (a body the schema refuses) and `InvalidSkipToken`.
 */

export const RESOURCE_GRAPH_ACTION = "Microsoft.ResourceGraph/resources/read";
/** The page when `$top` is absent ("Working with large Azure resource data sets", 05/17/2021). */
const DEFAULT_TOP = 100;

/** Whether a group's events are published to Resource Graph. */
export type Publishes = (state: FabricState, group: string) => boolean;
/**
 * Azure publishes a group's events off the VM only once its `scheduledEventsPolicy` opted in
 * (`eventGridAndResourceGraph`), the same switch the simulator's Event Grid honours.
 */
export const optedIn: Publishes = (state, group) =>
  publishesOffVm(state.groups[group]?.scheduledEventsPolicy);

const QueryRequest = z.strictObject({
  subscriptions: z.array(z.string().min(1).max(64)).min(1).max(1000),
  query: z.string().min(1).max(100_000),
  options: z
    .strictObject({
      // The spec's default; `table` is a format the simulator does not render.
      resultFormat: z.literal("objectArray").default("objectArray"),
      $top: z.number().int().min(1).max(1000).optional(),
      // "The number of rows to skip from the beginning of the results. Overrides the next page
      // offset when $skipToken property is present" (the spec's QueryRequestOptions).
      $skip: z.number().int().min(0).max(2_147_483_647).optional(),
      $skipToken: z.string().min(1).max(4096).optional(),
    })
    .optional(),
});

const SkipToken = z.strictObject({ after: z.string(), scope: z.string() });

const normalized = (q: string) => q.replace(/\s+/g, " ").trim();

/**
 * Resource Graph's error body: `BadRequest`/`RateLimiting` with a support line as the message and
 * the cause in `details` (the shape and wordings users report from the service, e.g.
 * Azure/azure-cli-extensions#3325, scautomation/AzureResourceGraph-Examples#2).
 */
function graphError(
  status: number,
  code: string,
  detail: { code: string; message: string },
  headers: Record<string, string>,
): ArmAnswer {
  const support = `Please provide below info when asking for support: timestamp = ${new Date().toISOString()}, correlationId = ${randomUUID()}.`;
  return { status, body: { error: { code, message: support, details: [detail] } }, headers };
}

/** The resource a row is scoped to: its id up to the Maintenance provider. */
function rowScope(row: MaintenanceResource): string {
  return row.id.slice(0, row.id.toLowerCase().lastIndexOf("/providers/microsoft.maintenance/"));
}

/** The read of a scope: `/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/{type}/n`. */
const scopeRead = (scope: string) => `Microsoft.Compute/${scope.split("/")[7] ?? ""}/read`;

function visibleRows(
  call: ArmCall,
  subscriptions: readonly string[],
  publishes: Publishes,
): MaintenanceResource[] {
  const state = call.arm.fabric.state();
  const published = new Set(
    Object.keys(state.groups)
      .filter((g) => publishes(state, g))
      .flatMap((g) => publishedScopeId(state, g)?.toLowerCase() ?? []),
  );
  const readable = (scope: string) =>
    call.arm.authorized(call.principalId, scope, scopeRead(scope));
  return resourceGraphRows(state)
    .filter(
      (r) =>
        published.has(rowScope(r).toLowerCase()) &&
        subscriptions.some((s) => covers(`/subscriptions/${s}`, r.id)) &&
        readable(rowScope(r)),
    )
    .sort((a, b) => (a.id.toLowerCase() < b.id.toLowerCase() ? -1 : 1));
}

/** A token names the last row served and the subscriptions asked: it resumes only that query. */
const scopeOf = (subscriptions: readonly string[]) =>
  createHash("sha256")
    .update([...subscriptions].sort().join(","))
    .digest("base64url")
    .slice(0, 22);
const encodeToken = (after: string, scope: string) =>
  Buffer.from(JSON.stringify({ after, scope })).toString("base64url");
function decodeToken(token: string): z.infer<typeof SkipToken> | undefined {
  try {
    const r = SkipToken.safeParse(JSON.parse(Buffer.from(token, "base64url").toString("utf8")));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** The `Resources` operation; `publishes` decides which groups' events the table holds. */
export function resourceGraphQuery(publishes: Publishes = optedIn) {
  return async (call: ArmCall): Promise<ArmAnswer> => {
    // Counted before anything else: a refused query still used the caller's quota.
    const quota = call.arm.takeResourceGraphQuery(call.principalId);
    const headers = quotaHeaders(quota);
    if (!quota.allowed) {
      return graphError(
        429,
        "RateLimiting",
        {
          code: "RateLimiting",
          message:
            "Client application has been throttled and should not attempt to repeat the request until an amount of time has elapsed. Please see https://aka.ms/resourcegraph-throttling for help.",
        },
        headers,
      );
    }
    const bad = (code: string, message: string) =>
      graphError(400, "BadRequest", { code, message }, headers);
    const body = await call.body();
    if (!body.ok) return { ...body.answer, headers };
    const req = QueryRequest.safeParse(body.value);
    if (!req.success) {
      const issue = req.error.issues[0];
      const where = issue?.path.join(".") || "(body)";
      return bad("InvalidRequestContent", `${where}: ${issue?.message ?? "invalid"}`);
    }
    if (normalized(req.data.query) !== normalized(SCHEDULED_EVENTS_QUERY)) {
      // Azure's wording for a query it cannot run; the simulator runs only the product's query.
      return bad(
        "InvalidQuery",
        "Query is invalid. Please refer to the documentation for the Azure Resource Graph service and fix the error before retrying.",
      );
    }
    const subscriptions = [...new Set(req.data.subscriptions.map((s) => s.toLowerCase()))];
    const queryable = subscriptions.filter((s) =>
      holdsWithin(
        call.arm.roleAssignments(),
        call.principalId,
        `/subscriptions/${s}`,
        RESOURCE_GRAPH_ACTION,
      ),
    );
    if (queryable.length === 0) {
      return graphError(
        403,
        "AuthorizationFailed",
        {
          code: "AuthorizationFailed",
          message: `The client '${call.principalId}' does not have authorization to perform action '${RESOURCE_GRAPH_ACTION}' on any of the subscriptions of the request.`,
        },
        headers,
      );
    }
    const rows = visibleRows(call, queryable, publishes);
    const scope = scopeOf(subscriptions);
    const token = req.data.options?.$skipToken;
    const resume = token === undefined ? undefined : decodeToken(token);
    if (token !== undefined && resume?.scope !== scope)
      return bad("InvalidSkipToken", "The $skipToken is not one this query returned.");
    const start =
      resume === undefined
        ? 0
        : rows.findIndex((r) => r.id.toLowerCase() > resume.after.toLowerCase());
    const skip = req.data.options?.$skip;
    const from =
      skip !== undefined ? Math.min(skip, rows.length) : start === -1 ? rows.length : start;
    const page = rows.slice(from, from + (req.data.options?.$top ?? DEFAULT_TOP));
    const last = page.at(-1);
    const more = last !== undefined && from + page.length < rows.length;
    return {
      status: 200,
      body: {
        totalRecords: rows.length,
        count: page.length,
        resultTruncated: "false",
        ...(more ? { $skipToken: encodeToken(last.id, scope) } : {}),
        // `project id, name, type, properties`: only those columns.
        data: page.map((r) => ({ id: r.id, name: r.name, type: r.type, properties: r.properties })),
        facets: [],
      },
      headers,
    };
  };
}
