import { describeZodError, type RelayReport, ReportResponse } from "@quiesce/shared";
import { Agent, request } from "undici";
import { errorText } from "../log";
import type { TokenSource } from "./auth";

export type ReportOutcome =
  | { ok: true; response: ReportResponse }
  | { ok: false; error: string; status?: number };

const MAX_BODY = 1024 * 1024;

/** POSTs a RelayReport to the coordinator and parses its answer; one attempt (the loop retries). */
export class CoordinatorClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
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
      const res = await request(this.url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(report),
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal,
      });
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > MAX_BODY) throw new Error("coordinator answer too large");
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString("utf8");
      if (res.statusCode < 200 || res.statusCode > 299) {
        return {
          ok: false,
          status: res.statusCode,
          error: `HTTP ${res.statusCode}: ${text.slice(0, 300)}`,
        };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { ok: false, status: res.statusCode, error: "answer is not JSON" };
      }
      const parsed = ReportResponse.safeParse(json);
      if (!parsed.success) {
        return {
          ok: false,
          status: res.statusCode,
          error: `answer malformed: ${describeZodError(parsed.error)}`,
        };
      }
      return { ok: true, response: parsed.data };
    } catch (e) {
      return { ok: false, error: errorText(e) };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
