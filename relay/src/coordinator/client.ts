import {
  parseReportResponse,
  type RelayReport,
  type ReportResponse,
  type SkippedDirective,
} from "@quiesce/protocol/relay";
import { httpRequest, keepAliveAgents } from "../http/request";
import { errorText } from "../log";
import type { TokenSource } from "./auth";

export type ReportOutcome =
  | { ok: true; response: ReportResponse; skipped: SkippedDirective[] }
  | { ok: false; error: string; status?: number };

/** Report fields added after protocol 1.0, each sent only when it has something to say. */
const ADDED_AFTER_1_0 = ["imds", "imdsProblems"] as const;

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
  let error = body;
  try {
    error = String((JSON.parse(body) as { error?: unknown }).error ?? body);
  } catch {
    // not JSON: read the text as it is
  }
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

  async report(report: RelayReport, signal?: AbortSignal): Promise<ReportOutcome> {
    const legacy = Date.now() < this.legacyUntil;
    const outcome = await this.send(legacy ? withoutAddedFields(report) : report, signal);
    if (legacy || outcome.ok || !outcome.refusedAddedField) return outcome;
    this.legacyUntil = Date.now() + LEGACY_RETRY_MS;
    return this.send(withoutAddedFields(report), signal);
  }

  /** True while reports leave out the fields a 1.0 coordinator refused. */
  talksToLegacyCoordinator(): boolean {
    return Date.now() < this.legacyUntil;
  }

  private async send(
    report: RelayReport,
    signal?: AbortSignal,
  ): Promise<ReportOutcome & { refusedAddedField?: boolean }> {
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
        return {
          ok: false,
          status: res.status,
          error: `HTTP ${res.status}: ${text.slice(0, 300)}`,
          refusedAddedField: refusedAddedField(res.status, text),
        };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { ok: false, status: res.status, error: "answer is not JSON" };
      }
      const parsed = parseReportResponse(json);
      if (!parsed.ok)
        return { ok: false, status: res.status, error: `answer malformed: ${parsed.error}` };
      return { ok: true, ...parsed.value };
    } catch (e) {
      return { ok: false, error: errorText(e) };
    }
  }

  async close(): Promise<void> {
    this.agents.destroy();
  }
}
