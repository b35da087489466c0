import { z } from "zod";

/**
 * A client of the coordinator's status and operator API: what the CLI, the demo and the
 * end-to-end tests read. Answers are parsed (only the fields we use) so a changed API fails loudly.
 */

const Blocker = z.looseObject({ vm: z.string(), reason: z.string(), detail: z.string() });

export const EventView = z.looseObject({
  eventId: z.string(),
  cluster: z.string(),
  eventType: z.string(),
  eventSource: z.string().nullable(),
  status: z.string(),
  phase: z.string(),
  phaseSince: z.string().nullable(),
  notBefore: z.string().nullable(),
  resources: z.array(z.string()),
  firstSeenAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  approval: z.looseObject({
    rule: z.string().nullable(),
    approvedAt: z.string().nullable(),
    approvedBy: z.string().nullable(),
    lease: z.looseObject({ holder: z.string(), expiresAt: z.string().nullable() }).nullable(),
    failedApprovers: z.array(z.string()),
  }),
  waitingFor: z.string().nullable(),
  blockers: z.array(Blocker),
  drained: z.array(z.string()),
});
export type EventView = z.infer<typeof EventView>;

const MemberView = z.looseObject({
  vm: z.string(),
  live: z.boolean(),
  lastSeenSecondsAgo: z.number(),
  // Coordinators before protocol 1.1 do not send it.
  imdsProblems: z.array(z.looseObject({ kind: z.string(), detail: z.string() })).default([]),
});

export const ClusterView = z.looseObject({
  cluster: z.string(),
  members: z.array(MemberView),
  liveMembers: z.number(),
  activeEvents: z.array(EventView),
});
export type ClusterView = z.infer<typeof ClusterView>;

export const StatusView = z.looseObject({ now: z.string(), clusters: z.array(ClusterView) });
export type StatusView = z.infer<typeof StatusView>;

const HistoryEntry = z.looseObject({
  at: z.string(),
  reason: z.string(),
  to: z.string().optional(),
});
const HookRunView = z.looseObject({ status: z.string(), finishedAt: z.string().optional() });
const ReadinessEntry = z.looseObject({
  vm: z.string(),
  inDocument: z.boolean(),
  affected: z.boolean(),
  drain: HookRunView.nullable(),
  recover: HookRunView.nullable(),
});
export const EventDetail = EventView.extend({
  readiness: z.array(ReadinessEntry),
  timeline: z.array(HistoryEntry),
});
export type EventDetail = z.infer<typeof EventDetail>;

export class StatusApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "StatusApiError";
  }
}

export class StatusClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.baseUrl.replace(/\/+$/, "")}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch {}
      throw new StatusApiError(res.status, `${method} ${path}: HTTP ${res.status}: ${message}`);
    }
    return JSON.parse(text) as unknown;
  }

  async all(): Promise<StatusView> {
    return StatusView.parse(await this.call("GET", "/api/status"));
  }

  async cluster(name: string): Promise<ClusterView> {
    return ClusterView.parse(await this.call("GET", `/api/clusters/${encodeURIComponent(name)}`));
  }

  async event(eventId: string, cluster?: string): Promise<EventDetail> {
    const q = cluster ? `?cluster=${encodeURIComponent(cluster)}` : "";
    return EventDetail.parse(
      await this.call("GET", `/api/events/${encodeURIComponent(eventId)}${q}`),
    );
  }

  async operator(
    action: "hold" | "release" | "force-approve",
    eventId: string,
    body: { cluster?: string; reason: string; ttlMinutes?: number },
  ): Promise<unknown> {
    return this.call("POST", `/api/events/${encodeURIComponent(eventId)}/${action}`, body);
  }
}
