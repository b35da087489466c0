import { parseJsonWith, redact, secretParts } from "@quiesce/protocol";
import {
  ClusterPage,
  EventDetail,
  type EventState,
  type EventView,
  OperatorAnswer,
  type Phase,
  StatusPage,
} from "@quiesce/protocol/status";
import { z } from "zod";
import { fetchFailureText } from "./fetchFailure";

/**
 * A client of the coordinator's status and operator API: what the CLI, the demo and the
 * end-to-end tests read. Answers are parsed with the very schemas the coordinator builds them
 * from (@quiesce/protocol's status views), so a changed API fails loudly.
 */

export { ClusterPage, EventDetail, type EventView, OperatorAnswer, StatusPage };

/** The coordinator answered, but not as asked: a refusal (its HTTP status) or an unreadable answer. */
export class StatusApiError extends Error {
  constructor(
    /** The HTTP status (200 for an answer that did not parse). */
    readonly status: number,
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = "StatusApiError";
  }
}

/** No answer at all: the coordinator could not be reached, or the connection failed. */
export class CoordinatorUnreachableError extends Error {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = "CoordinatorUnreachableError";
  }
}

export interface StatusFilter {
  cluster?: string;
  phases?: readonly Phase[];
  state?: EventState;
  limit?: number;
  continuation?: string;
}

/** How the coordinator words a refusal. */
const ProblemBody = z.object({ error: z.string() });

/** Following continuations stops after this many pages: a bound, not an expected size. */
const MAX_PAGES = 1000;
/** One request, answer included: the coordinator answers in well under a second. */
const TIMEOUT_MS = 10_000;
/** How much of a refusal's body an error quotes (a gateway's HTML page can be long). */
const MAX_QUOTED = 300;

function queryString(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
}

export class StatusClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  /**
   * One call; its answer parsed with `answer`. Every failure names the URL and what went wrong,
   * and never the credential: it is sent in a header, but a coordinator or a proxy may echo it.
   */
  private async call<S extends z.ZodType>(
    answer: S,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> {
    const url = `${this.baseUrl.replace(/\/+$/, "")}${path}`;
    const clean = (text: string) => redact(redact(text, secretParts(this.key)));
    let status: number;
    let reason: string;
    let text: string;
    try {
      const res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      ({ status, statusText: reason } = res);
      text = await res.text();
    } catch (e) {
      const why = fetchFailureText(e, TIMEOUT_MS);
      throw new CoordinatorUnreachableError(
        url,
        clean(`cannot reach the coordinator at ${url}: ${why}`),
      );
    }
    if (status < 200 || status > 299) {
      const problem = parseJsonWith(ProblemBody, text);
      const said = (problem.ok ? problem.value.error : text).replace(/\s+/g, " ").trim();
      const quoted = said.length > MAX_QUOTED ? `${said.slice(0, MAX_QUOTED - 3)}...` : said;
      const http = `HTTP ${status}${reason ? ` ${reason}` : ""}`;
      throw new StatusApiError(
        status,
        url,
        clean(
          `the coordinator answered ${method} ${url} with ${http}${quoted ? `: ${quoted}` : ""}`,
        ),
      );
    }
    const parsed = parseJsonWith(answer, text);
    if (!parsed.ok)
      throw new StatusApiError(
        status,
        url,
        clean(`unreadable answer to ${method} ${url} (is it the coordinator?): ${parsed.error}`),
      );
    return parsed.value;
  }

  /** One page of GET /api/status. */
  async status(filter: StatusFilter = {}): Promise<StatusPage> {
    const q = queryString({
      cluster: filter.cluster,
      phase: filter.phases?.join(","),
      state: filter.state,
      limit: filter.limit?.toString(),
      continuation: filter.continuation,
    });
    return this.call(StatusPage, "GET", `/api/status${q}`);
  }

  /** Every page of GET /api/status, following continuations: the last page's clusters, all events. */
  async statusAll(filter: Omit<StatusFilter, "continuation"> = {}): Promise<StatusPage> {
    let page = await this.status(filter);
    const events = [...page.events];
    for (let n = 1; page.continuation !== null && n < MAX_PAGES; n++) {
      page = await this.status({ ...filter, continuation: page.continuation });
      events.push(...page.events);
    }
    return { ...page, events };
  }

  /** One page of GET /api/clusters/{name} (members paged). */
  async cluster(
    name: string,
    opts: { limit?: number; continuation?: string } = {},
  ): Promise<ClusterPage> {
    const q = queryString({ limit: opts.limit?.toString(), continuation: opts.continuation });
    return this.call(ClusterPage, "GET", `/api/clusters/${encodeURIComponent(name)}${q}`);
  }

  /** Every member page of GET /api/clusters/{name}: the last page with all members. */
  async clusterAll(name: string, limit?: number): Promise<ClusterPage> {
    let page = await this.cluster(name, limit ? { limit } : {});
    const members = [...page.members];
    for (let n = 1; page.continuation !== null && n < MAX_PAGES; n++) {
      page = await this.cluster(name, {
        ...(limit ? { limit } : {}),
        continuation: page.continuation,
      });
      members.push(...page.members);
    }
    return { ...page, members };
  }

  async event(eventId: string, cluster?: string): Promise<EventDetail> {
    const q = cluster ? `?cluster=${encodeURIComponent(cluster)}` : "";
    return this.call(EventDetail, "GET", `/api/events/${encodeURIComponent(eventId)}${q}`);
  }

  async operator(
    action: "hold" | "release" | "force-approve" | "force-gate",
    eventId: string,
    body: {
      cluster?: string;
      reason: string;
      ttlMinutes?: number;
      gate?: string;
      replace?: boolean;
    },
  ): Promise<OperatorAnswer> {
    // The coordinator answers an operator action with the event as it now stands, and the
    // override it replaced.
    return this.call(
      OperatorAnswer,
      "POST",
      `/api/events/${encodeURIComponent(eventId)}/${action}`,
      body,
    );
  }
}
