import {
  parseReportResponse,
  type RelayReport,
  type ReportResponse,
  type SkippedDirective,
} from "@quiesce/shared";
import { httpRequest, keepAliveAgents } from "../http/request";
import { errorText } from "../log";
import type { TokenSource } from "./auth";

export type ReportOutcome =
  | { ok: true; response: ReportResponse; skipped: SkippedDirective[] }
  | { ok: false; error: string; status?: number };

/** POSTs a RelayReport to the coordinator and parses its answer; one attempt (the loop retries). */
export class CoordinatorClient {
  private readonly agents = keepAliveAgents(1);
  private readonly url: string;

  constructor(
    baseUrl: string,
    private readonly tokens: TokenSource,
    private readonly timeoutMs = 10_000,
  ) {
    this.url = `${baseUrl.replace(/\/+$/, "")}/api/relay/report`;
  }

  async report(report: RelayReport, signal?: AbortSignal): Promise<ReportOutcome> {
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
