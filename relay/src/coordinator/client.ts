import { parseJsonWith, type Result } from "@quiesce/protocol";
import {
  type AnswerAttestation,
  parseReportResponse,
  RefusalBody,
  type RelayReport,
  type ReportResponse,
  redactReport,
  type SkippedDirective,
} from "@quiesce/protocol/relay";
import { z } from "zod";
import { httpRequest, keepAliveAgents } from "../http/request";
import { errorText } from "../log";
import type { TokenSource } from "./auth";

/** The coordinator's answer: its directives, and those this relay did not understand. */
export interface ReportAnswer {
  response: ReportResponse;
  skipped: SkippedDirective[];
}

/** Why there is no answer (the reporter retries), and a refusal's attestation challenge. */
export interface ReportFailure {
  message: string;
  /** A 403/503 refusing the report for its attestation: the challenge to answer, if any. */
  attestation?: AnswerAttestation;
}

/** The answer, or why there is none. */
export type ReportOutcome = Result<ReportAnswer, ReportFailure>;

/** A failed send, and whether it was a 1.0 coordinator refusing a field added after 1.0. */
type SendOutcome = Result<ReportAnswer, ReportFailure & { refusedAddedField: boolean }>;

/** How the coordinator words a refusal. */
const ProblemBody = z.object({ error: z.string() });

/**
 * Report fields added after protocol 1.0. A 1.2 relay sends `attestation` on every report (that
 * it can attest is the news), so a 1.0 coordinator's refusal of it is met like the others'.
 */
const ADDED_AFTER_1_0 = ["imds", "imdsProblems", "attestation"] as const;

/** How long to leave the added fields out after a 1.0 coordinator refused them. */
const LEGACY_RETRY_MS = 10 * 60_000;

/**
 * A 1.0 coordinator refuses any field it does not know ("Unrecognized key"), and a 1.1 relay
 * sends its added fields exactly when IMDS misbehaves. So that a rolling upgrade works in either
 * order, such a refusal is answered by sending the report again without them, and leaving them
 * out for a while: the coordinator hears the relay, only without the IMDS detail.
 */
function refusedAddedField(status: number, body: string): boolean {
  if (status !== 400) return false;
  const problem = parseJsonWith(ProblemBody, body);
  // Not a problem body: read the text as it is.
  const error = problem.ok ? problem.value.error : body;
  return /Unrecognized key/i.test(error) && ADDED_AFTER_1_0.some((f) => error.includes(`"${f}"`));
}

function withoutAddedFields(report: RelayReport): RelayReport {
  const copy: Record<string, unknown> = { ...report };
  for (const f of ADDED_AFTER_1_0) delete copy[f];
  return copy as RelayReport;
}

/** POSTs a RelayReport to the coordinator and parses its answer; one attempt (the loop retries). */
export class CoordinatorClient {
  private readonly agents = keepAliveAgents(1);
  private readonly url: string;
  /** Until when the coordinator is taken for a 1.0 one (see refusedAddedField). */
  private legacyUntil = 0;

  constructor(
    baseUrl: string,
    private readonly tokens: TokenSource,
    private readonly timeoutMs = 10_000,
  ) {
    this.url = `${baseUrl.replace(/\/+$/, "")}/api/relay/report`;
  }

  async report(unredacted: RelayReport, signal?: AbortSignal): Promise<ReportOutcome> {
    const legacy = Date.now() < this.legacyUntil;
    // What hooks and servers wrote leaves this VM without secrets (docs/security.md).
    const report = redactReport(unredacted);
    let sent = await this.send(legacy ? withoutAddedFields(report) : report, signal);
    if (!legacy && !sent.ok && sent.error.refusedAddedField) {
      this.legacyUntil = Date.now() + LEGACY_RETRY_MS;
      sent = await this.send(withoutAddedFields(report), signal);
    }
    if (sent.ok) return sent;
    const { refusedAddedField: _, ...failure } = sent.error;
    return { ok: false, error: failure };
  }

  /** True while reports leave out the fields a 1.0 coordinator refused. */
  talksToLegacyCoordinator(): boolean {
    return Date.now() < this.legacyUntil;
  }

  private async send(report: RelayReport, signal?: AbortSignal): Promise<SendOutcome> {
    const failed = (
      message: string,
      refusedAddedField = false,
      attestation?: AnswerAttestation,
    ): SendOutcome => ({
      ok: false,
      error: { message, refusedAddedField, ...(attestation ? { attestation } : {}) },
    });
    try {
      const token = await this.tokens.token();
      const res = await httpRequest({
        method: "POST",
        url: this.url,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(report),
        timeoutMs: this.timeoutMs,
        signal,
        agents: this.agents,
      });
      const text = res.body;
      if (res.status < 200 || res.status > 299) {
        const refusal = parseJsonWith(RefusalBody, text);
        return failed(
          `HTTP ${res.status}: ${text.slice(0, 300)}`,
          refusedAddedField(res.status, text),
          refusal.ok ? refusal.value.attestation : undefined,
        );
      }
      // Any JSON here: parseReportResponse reads the directives one by one.
      const json = parseJsonWith(z.unknown(), text);
      if (!json.ok) return failed("answer is not JSON");
      const parsed = parseReportResponse(json.value);
      if (!parsed.ok) return failed(`answer malformed: ${parsed.error}`);
      return parsed;
    } catch (e) {
      return failed(errorText(e));
    }
  }

  async close(): Promise<void> {
    this.agents.destroy();
  }
}
