import { backoffMs, delay, parseJsonWith } from "@quiesce/protocol";
import {
  ATTESTED_API_VERSION,
  type ImdsProblem,
  INSTANCE_METADATA_API_VERSION,
  InstanceMetadata,
  parseScheduledEventsLeniently,
  type ScheduledEventsDocument,
  type VmIdentity,
  vmIdentityFromInstanceMetadata,
} from "@quiesce/protocol/imds";
import { AttestedDocument } from "@quiesce/protocol/relay";
import { z } from "zod";
import { httpRequest, keepAliveAgents } from "../http/request";
import { errorText } from "../log";
import { Pacer } from "./pacer";

/** `problems`: what could not be read (an odd event or field of a document, or all of it). */
export type ScheduledEventsRead =
  | { kind: "document"; document: ScheduledEventsDocument; problems: ImdsProblem[] }
  | { kind: "unchanged" }
  | { kind: "malformed"; error: string; problems: ImdsProblem[] }
  | { kind: "unavailable"; error: string };

export interface ImdsClientOptions {
  baseUrl: string;
  apiVersion: string;
  /** How long to keep retrying 410 / 429 / 5xx / connection errors (Azure: 410 for up to 70 s). */
  retryBudgetMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Per-request timeout once IMDS has answered once. */
  timeoutMs?: number;
  /** The very first scheduledevents call enables the feature and may take up to 2 minutes. */
  firstTimeoutMs?: number;
  /** At most this many IMDS requests start in any second (IMDS throttles above 5). */
  requestsPerSecond?: number;
  onRetry?: (info: { what: string; attempt: number; reason: string; waitMs: number }) => void;
}

type Attempt = { status: number; body: string; etag?: string } | { error: string };

const retriable = (a: Attempt) =>
  "error" in a || a.status === 410 || a.status === 429 || (a.status >= 500 && a.status <= 599);

/** The IMDS side of the relay: Scheduled Events GET/POST and instance metadata. */
export class ImdsClient {
  private readonly agents = keepAliveAgents(2);
  private readonly pacer: Pacer;
  private etag: string | undefined;
  private answered = false;
  private readonly o: Required<Omit<ImdsClientOptions, "onRetry">> &
    Pick<ImdsClientOptions, "onRetry">;

  constructor(options: ImdsClientOptions) {
    this.o = {
      retryBudgetMs: 70_000,
      retryBaseMs: 250,
      retryMaxMs: 5_000,
      timeoutMs: 5_000,
      firstTimeoutMs: 120_000,
      requestsPerSecond: 5,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
    };
    this.pacer = new Pacer(this.o.requestsPerSecond);
  }

  private eventsUrl() {
    return `${this.o.baseUrl}/metadata/scheduledevents?api-version=${encodeURIComponent(this.o.apiVersion)}`;
  }

  /** GET the document; `unchanged` on 304 (ETag) so an idle VM parses nothing. */
  async readScheduledEvents(signal?: AbortSignal): Promise<ScheduledEventsRead> {
    const headers: Record<string, string> = { Metadata: "true" };
    if (this.etag) headers["if-none-match"] = this.etag;
    const timeout = this.answered ? this.o.timeoutMs : this.o.firstTimeoutMs;
    const a = await this.withRetry(
      "scheduledevents",
      () => this.once("GET", this.eventsUrl(), headers, undefined, timeout, signal),
      signal,
    );
    if ("error" in a) return { kind: "unavailable", error: a.error };
    this.answered = true;
    if (a.status === 304) return { kind: "unchanged" };
    if (a.status !== 200)
      return { kind: "unavailable", error: `HTTP ${a.status}: ${a.body.slice(0, 200)}` };
    // Any JSON here: the document is then read event by event, so one odd field does not hide
    // the document's other events.
    const json = parseJsonWith(z.unknown(), a.body);
    if (!json.ok) {
      this.etag = undefined;
      return {
        kind: "malformed",
        error: json.error,
        problems: [{ kind: "document", detail: json.error }],
      };
    }
    const read = parseScheduledEventsLeniently(json.value);
    if (!read.document) {
      // Forget the ETag: a fixed document under the same tag must still be read again.
      this.etag = undefined;
      const error = read.problems.map((p) => p.detail).join("; ");
      return { kind: "malformed", error, problems: read.problems };
    }
    this.etag = a.etag;
    return { kind: "document", document: read.document, problems: read.problems };
  }

  /** POST StartRequests for these ids (as the document spells them). */
  async postStartRequests(
    eventIds: string[],
    signal?: AbortSignal,
  ): Promise<{ status: number; body: string } | { error: string }> {
    const body = JSON.stringify({ StartRequests: eventIds.map((EventId) => ({ EventId })) });
    const headers = { Metadata: "true", "content-type": "application/json" };
    // A short budget: the approval lease is time-bounded and the coordinator re-directs if needed.
    return this.withRetry(
      "StartRequests",
      () => this.once("POST", this.eventsUrl(), headers, body, this.o.timeoutMs, signal),
      signal,
      10_000,
    );
  }

  /** Who this VM is. Retries like any IMDS call; throws when IMDS cannot say. */
  async readIdentity(signal?: AbortSignal): Promise<VmIdentity> {
    const url = `${this.o.baseUrl}/metadata/instance?api-version=${INSTANCE_METADATA_API_VERSION}`;
    const a = await this.withRetry(
      "instance",
      () => this.once("GET", url, { Metadata: "true" }, undefined, this.o.timeoutMs, signal),
      signal,
    );
    if ("error" in a) throw new Error(`instance metadata unavailable: ${a.error}`);
    if (a.status !== 200)
      throw new Error(`instance metadata: HTTP ${a.status}: ${a.body.slice(0, 200)}`);
    const parsed = parseJsonWith(InstanceMetadata, a.body);
    if (!parsed.ok) throw new Error(`instance metadata malformed: ${parsed.error}`);
    return vmIdentityFromInstanceMetadata(parsed.value);
  }

  /**
   * The attested document for this nonce (docs/auth.md, "Attestation"), as IMDS gives it: the
   * relay neither parses nor checks the signature, the coordinator does. A short retry budget:
   * the coordinator challenges again if this fails.
   */
  async readAttestedDocument(
    nonce: string,
    signal?: AbortSignal,
  ): Promise<{ document: AttestedDocument } | { error: string }> {
    const url = `${this.o.baseUrl}/metadata/attested/document?api-version=${ATTESTED_API_VERSION}&nonce=${encodeURIComponent(nonce)}`;
    const a = await this.withRetry(
      "attested",
      () => this.once("GET", url, { Metadata: "true" }, undefined, this.o.timeoutMs, signal),
      signal,
      15_000,
    );
    if ("error" in a) return { error: `attested document unavailable: ${a.error}`.slice(0, 512) };
    if (a.status !== 200)
      return { error: `attested document: HTTP ${a.status}: ${a.body.slice(0, 200)}` };
    const parsed = parseJsonWith(AttestedDocument, a.body);
    if (!parsed.ok) return { error: `attested document malformed: ${parsed.error}`.slice(0, 512) };
    return { document: parsed.value };
  }

  async close(): Promise<void> {
    this.agents.destroy();
  }

  private async withRetry(
    what: string,
    attempt: () => Promise<Attempt>,
    signal?: AbortSignal,
    budgetMs = this.o.retryBudgetMs,
  ): Promise<Attempt> {
    const started = performance.now();
    const backoff = {
      baseMs: this.o.retryBaseMs,
      maxMs: this.o.retryMaxMs,
      jitter: "equal",
    } as const;
    for (let n = 1; ; n++) {
      const a = await attempt();
      if (!retriable(a) || signal?.aborted) return a;
      const waitMs = backoffMs(n, backoff);
      if (performance.now() - started + waitMs > budgetMs) return a;
      this.o.onRetry?.({
        what,
        attempt: n,
        reason: "error" in a ? a.error : `HTTP ${a.status}`,
        waitMs: Math.round(waitMs),
      });
      await delay(waitMs, signal);
    }
  }

  private async once(
    method: "GET" | "POST",
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Attempt> {
    await this.pacer.slot(signal);
    if (signal?.aborted) return { error: "aborted" };
    try {
      const res = await httpRequest({
        method,
        url,
        headers,
        body,
        timeoutMs,
        signal,
        agents: this.agents,
      });
      const etag = res.headers.etag;
      return {
        status: res.status,
        body: res.body,
        etag: typeof etag === "string" ? etag : undefined,
      };
    } catch (e) {
      return { error: errorText(e) };
    }
  }
}
