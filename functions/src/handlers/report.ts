import { memberKey } from "@quiesce/core";
import { policyFor } from "@quiesce/protocol/policy";
import {
  PROTOCOL_VERSION,
  parseRelayReport,
  type ReportResponse,
  redactReport,
} from "@quiesce/protocol/relay";
import { attestationMode } from "../attestation";
import { authorizeRelayForVm } from "../auth";
import { attestationStep } from "../pipeline/attest";
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
    // Secrets never leave: an older or buggy relay may still send a token in a hook's detail.
    const report = redactReport(parsed.value);
    const keyProblems = reportKeyProblems(report);
    if (keyProblems.length > 0) {
      deps.telemetry.report(report.cluster, "rejected");
      return problem(400, `invalid report: ${keyProblems.join("; ")}`);
    }

    const policy = policyFor(deps.settings.QUIESCE_POLICY, report.cluster);
    const mode = attestationMode(deps.settings, policy);
    const allowed = authorizeRelayForVm(
      principal,
      report.vm,
      deps.settings.QUIESCE_SHARED_RELAY_IDENTITIES,
    );
    // A relay identity that names no VM is bound by attestation where it is required: every
    // report must then come from the relay process that proved it runs on the reported VM.
    const attestedInstead = !allowed.ok && allowed.error.unbindable && mode === "require";
    if (!allowed.ok && !attestedInstead) return problem(allowed.error.status, allowed.error.reason);

    const step =
      mode === "off" || !deps.attestor
        ? undefined
        : attestationStep(report, memberKey(report.vm.name), mode, {
            attestor: deps.attestor,
            telemetry: deps.telemetry,
            periodMs: deps.settings.QUIESCE_ATTESTATION_PERIOD_HOURS * 3_600_000,
          });
    const outcome = await processReport(deps, report, policy, step);
    const { decision, hooksStored, ops, attestation, refusal } = outcome;
    // Under `attestation: require`: nothing applied; the body carries the challenge to answer.
    if (refusal) return json(refusal.status, { error: refusal.message, attestation });
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
      ...(attestation ? { attestation } : {}),
    };
    return json(200, response);
  });
}
