import {
  applyReport,
  type ClusterState,
  memberKey,
  needsClusterEvents,
  storedHooks,
} from "@quiesce/core";
import { policyFor } from "@quiesce/protocol/policy";
import { PROTOCOL_VERSION, parseRelayReport, type ReportResponse } from "@quiesce/protocol/relay";
import { authorizeRelayForVm } from "../auth";
import { counted, reportKeyProblems, withConflictRetry } from "../store";
import { afterReport } from "../telemetry/afterReport";
import { type Handler, jsonBody, withAuth } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";

/**
 * POST /api/relay/report: authenticate, read and parse the report (nothing is written for bad
 * input), check the caller may speak for that VM, then read → decide → write under ETags,
 * retried from a fresh read when another instance wrote first.
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

    const allowed = authorizeRelayForVm(principal, report.vm);
    if (!allowed.ok) return problem(allowed.status, allowed.error);

    const policy = policyFor(deps.settings.QUIESCE_POLICY, report.cluster);
    const reporter = memberKey(report.vm.name);
    const settleMs = deps.settings.QUIESCE_STORAGE_SETTLE_SECONDS * 1000;
    // Store failures (lost races, an unreachable store) are answered by withStoreErrors; the
    // reports metric counts them as "unavailable".
    let attempts = 0;
    let before: ClusterState | undefined;
    let hooksStored: string[] = [];
    const { value: decision, ops } = await counted(() =>
      withConflictRetry(async () => {
        attempts++;
        // Its own events first; all the cluster's only when the decision may elect an approver
        // (the budget of events in flight): the events partition is the cluster's hottest.
        let loaded = await deps.store.loadForReport(report, { onlyItsEvents: true });
        const now = deps.clock.now();
        let d = applyReport(loaded.state, report, now, policy);
        if (needsClusterEvents(loaded.state, d.state)) {
          loaded = await deps.store.addClusterEvents(loaded);
          d = applyReport(loaded.state, report, now, policy);
        }
        await deps.store.commit(loaded, d, { reporter });
        before = loaded.state;
        // From what storage held before this report: an answer alone proves no durability.
        hooksStored = storedHooks(loaded.state, report, reporter, now, settleMs);
        return d;
      }, deps.retry),
    ).catch((e: unknown) => {
      deps.telemetry.report(report.cluster, "unavailable", attempts);
      throw e;
    });
    if (before) afterReport(deps, report, before, decision, policy, attempts, ops.conflicts);
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
