import { policyFor } from "@quiesce/protocol/policy";
import { PROTOCOL_VERSION, parseRelayReport, type ReportResponse } from "@quiesce/protocol/relay";
import { authorizeRelayForVm } from "../auth";
import { processReport } from "../pipeline/report";
import { reportKeyProblems } from "../store";
import { type Handler, jsonBody, withAuth } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";

/**
 * POST /api/relay/report: authenticate, read and parse the report (nothing is written for bad
 * input), check the caller may speak for that VM, then hand it to the report pipeline
 * (pipeline/report.ts: load → decide → elect → commit → effects) and answer with its directives.
 * Store failures (lost races, an unreachable store) are answered by withStoreErrors; the reports
 * metric counts them as "unavailable".
 */
export function reportHandler(deps: HandlerDeps): Handler {
  return withAuth(deps, "relay", async (request, context, principal) => {
    const parsed = await jsonBody(
      request,
      deps.settings.QUIESCE_MAX_BODY_BYTES,
      parseRelayReport,
      "report",
    );
    if (!parsed.ok) return parsed.error;
    const report = parsed.value;
    const keyProblems = reportKeyProblems(report);
    if (keyProblems.length > 0) {
      deps.telemetry.report(report.cluster, "rejected");
      return problem(400, `invalid report: ${keyProblems.join("; ")}`);
    }

    const allowed = authorizeRelayForVm(
      principal,
      report.vm,
      deps.settings.QUIESCE_SHARED_RELAY_IDENTITIES,
    );
    if (!allowed.ok) return problem(allowed.error.status, allowed.error.reason);

    const policy = policyFor(deps.settings.QUIESCE_POLICY, report.cluster);
    const { decision, hooksStored, ops } = await processReport(deps, report, policy);
    if (deps.settings.QUIESCE_DEBUG)
      context.debug(
        `report ${report.cluster}/${report.vm.name} incarnation=${report.document?.DocumentIncarnation ?? "-"} applied=${decision.applied} directives=${decision.directives.length} table ops: ${ops.reads} reads, ${ops.queries} queries, ${ops.writes} writes, ${ops.conflicts} conflicts`,
      );
    const response: ReportResponse = {
      protocol: PROTOCOL_VERSION,
      applied: decision.applied,
      nextReportInSeconds: decision.nextReportInSeconds,
      directives: decision.directives,
      hooksStored,
      activeReportSeconds: policy.activeReportSeconds,
    };
    return json(200, response);
  });
}
