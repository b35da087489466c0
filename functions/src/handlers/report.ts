import type { HttpRequest } from "@azure/functions";
import { memberKey } from "@quiesce/core";
import {
  PROTOCOL_VERSION,
  parseRelayReport,
  type ReportResponse,
  redactReport,
} from "@quiesce/protocol/relay";
import { attestationMode } from "../attestation";
import { authorizeRelayForVm, type Denial } from "../auth";
import { invocationLogger } from "../log";
import { attestationStep } from "../pipeline/attest";
import { processReport } from "../pipeline/report";
import { ReportClaim } from "../status/refusedReports";
import { reportKeyProblems } from "../store";
import { type AuthedHandler, type Handler, jsonBody, parsedBy } from "./compose";
import { authenticate, denied, type HandlerDeps } from "./deps";
import { json, problem } from "./http";

/**
 * POST /api/relay/report: authenticate, read and parse the report (nothing is written for bad
 * input), check the caller may speak for that VM, then hand it to the report pipeline
 * (pipeline/report.ts: load → decide → elect → commit → effects) and answer with its directives.
 * Store failures (lost races, an unreachable store) are answered by withStoreErrors; the reports
 * metric counts them as "unavailable". A report refused at authentication is counted by the VM
 * it claims (status/refusedReports.ts), and changes nothing else.
 */
export function reportHandler(deps: HandlerDeps): Handler {
  return withRelayAuth(deps, async (request, context, principal) => {
    const parsed = await jsonBody(request, deps.options.maxBodyBytes, parseRelayReport, "report");
    if (!parsed.ok) return parsed.error;
    // Secrets never leave: an older or buggy relay may still send a token in a hook's detail.
    const report = redactReport(parsed.value);
    const keyProblems = reportKeyProblems(report);
    if (keyProblems.length > 0) {
      deps.telemetry.report(report.cluster, "rejected");
      return problem(400, `invalid report: ${keyProblems.join("; ")}`);
    }

    const policy = deps.policies.for(report.cluster);
    const mode = attestationMode(deps.options, policy);
    const allowed = authorizeRelayForVm(principal, report.vm, deps.options.sharedRelayIdentities);
    // A relay identity that names no VM is bound by attestation where it is required: every
    // report must then come from the relay process that proved it runs on the reported VM.
    const attestedInstead = !allowed.ok && allowed.error.unbindable && mode === "require";
    if (!allowed.ok && !attestedInstead) {
      noteRefused(deps, report, allowed.error);
      return problem(allowed.error.status, allowed.error.reason);
    }

    const step =
      mode === "off" || !deps.attestor
        ? undefined
        : attestationStep(report, memberKey(report.vm.name), mode, {
            attestor: deps.attestor,
            telemetry: deps.telemetry,
            periodMs: deps.options.attestation.periodMs,
          });
    const outcome = await processReport(deps, report, policy, step);
    const { decision, hooksStored, ops, attestation, refusal } = outcome;
    // Under `attestation: require`: nothing applied; the body carries the challenge to answer.
    if (refusal) return json(refusal.status, { error: refusal.message, attestation });
    if (deps.options.debug)
      invocationLogger(context, { cluster: report.cluster, vm: report.vm.name }).debug("report", {
        incarnation: report.document?.DocumentIncarnation ?? "-",
        applied: decision.reply.applied,
        directives: decision.reply.directives.length,
        reads: ops.reads,
        queries: ops.queries,
        writes: ops.writes,
        conflicts: ops.conflicts,
      });
    const response: ReportResponse = {
      protocol: PROTOCOL_VERSION,
      applied: decision.reply.applied,
      nextReportInSeconds: decision.reply.nextReportInSeconds,
      directives: decision.reply.directives,
      hooksStored,
      activeReportSeconds: policy.activeReportSeconds,
      ...(attestation ? { attestation } : {}),
    };
    return json(200, response);
  });
}

/**
 * compose.ts's withAuth, seeing the denial: a relay turned away (401, 403; not a 503, which is
 * the coordinator's own trouble) is counted by the cluster and VM its body claims, read within
 * the same body limit and never trusted, so that a relay with a wrong key is not invisible.
 */
function withRelayAuth(deps: HandlerDeps, handler: AuthedHandler): Handler {
  return async (request, context) => {
    const auth = await authenticate(deps, request.headers.get("authorization"), "relay", context);
    if (auth.ok) return handler(request, context, auth.value);
    if (auth.error.status !== 503) await noteRefusedBody(deps, request, auth.error);
    return denied(auth.error);
  };
}

async function noteRefusedBody(deps: HandlerDeps, request: HttpRequest, denial: Denial) {
  // Reading it is only to show the claim: a body that cannot be read changes no answer.
  const claim = await jsonBody(
    request,
    deps.options.maxBodyBytes,
    parsedBy(ReportClaim),
    "report",
  ).catch(() => null);
  if (claim?.ok) noteRefused(deps, claim.value, denial);
  else deps.telemetry.reportRefused(denial.status); // counted, but claims no VM to show it on
}

function noteRefused(deps: HandlerDeps, claim: ReportClaim, denial: Denial): void {
  deps.telemetry.reportRefused(denial.status);
  deps.refusedReports.note(claim, denial, deps.clock.now());
}
