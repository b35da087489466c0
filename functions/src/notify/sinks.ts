import { type Result, redact, redactDeep } from "@quiesce/protocol";
import type { NotificationSink } from "@quiesce/protocol/policy";
import { type HttpDispatcher, pooledAgent, request } from "../net/undici";
import type { Notification } from "./due";
import {
  DELIVERY_HEADER,
  type MessageLinks,
  SIGNATURE_HEADER,
  sign,
  slackPayload,
  TIMESTAMP_HEADER,
  teamsPayload,
  webhookPayload,
} from "./payloads";

/** Where notifications go: app settings (Key Vault references in Azure). Never logged. */
export interface SinkSecrets {
  teamsUrl?: string;
  slackUrl?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  /** Not a secret: where Quiesce's own links in Teams and Slack messages point. */
  links?: MessageLinks;
}

/** Why a send failed; `retry` false: the sink refused the message itself (4xx), trying again cannot help. */
export interface SendFailure {
  retry: boolean;
  reason: string;
}

export type SendResult = Result<{ status: number }, SendFailure>;

/** A sink's answer may echo its URL's key: the reason is stored in the outbox and logged. */
const failed = (retry: boolean, reason: string): SendResult => ({
  ok: false,
  error: { retry, reason: redact(reason) },
});

/** The longest a send may take; the outbox claim outlives it so no other instance resends meanwhile. */
export const SEND_TIMEOUT_MS = 10_000;

/**
 * Posts notifications over one pooled keep-alive undici Agent with connect, header and body
 * timeouts. Error texts name the sink and the failure, never the URL: webhook URLs are secrets.
 */
export class Sinks {
  /**
   * @param agent the coordinator's one pooled Agent for outbound HTTP (ARM, gates, webhooks);
   *   each send is bounded by its own signal, whatever the agent's timeouts.
   */
  constructor(
    private readonly secrets: SinkSecrets,
    private readonly agent: HttpDispatcher = pooledAgent({
      connections: 8,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connect: { timeout: 5_000 },
      headersTimeout: SEND_TIMEOUT_MS,
      bodyTimeout: SEND_TIMEOUT_MS,
    }),
  ) {}

  configured(): NotificationSink[] {
    const out: NotificationSink[] = [];
    if (this.secrets.teamsUrl) out.push("teams");
    if (this.secrets.slackUrl) out.push("slack");
    if (this.secrets.webhookUrl && this.secrets.webhookSecret) out.push("webhook");
    return out;
  }

  async send(
    sink: NotificationSink,
    unredacted: Notification,
    deliveryId: string,
    nowMs: number,
  ): Promise<SendResult> {
    // Secrets never leave (docs/security.md): what relays, hooks and Azure wrote is redacted
    // before it is put into any message.
    const n = redactDeep(unredacted);
    const headers: Record<string, string> = { "content-type": "application/json" };
    let url: string | undefined;
    let body: string;
    switch (sink) {
      case "teams":
        url = this.secrets.teamsUrl;
        body = JSON.stringify(teamsPayload(n, this.secrets.links));
        break;
      case "slack":
        url = this.secrets.slackUrl;
        body = JSON.stringify(slackPayload(n, this.secrets.links));
        break;
      case "webhook": {
        url = this.secrets.webhookUrl;
        body = JSON.stringify(webhookPayload(n, deliveryId));
        const ts = Math.floor(nowMs / 1000);
        headers[TIMESTAMP_HEADER] = String(ts);
        headers[DELIVERY_HEADER] = deliveryId;
        headers[SIGNATURE_HEADER] = sign(this.secrets.webhookSecret ?? "", ts, body);
        break;
      }
    }
    if (!url) return failed(false, `${sink} is not configured`);
    try {
      const res = await request(url, {
        method: "POST",
        headers,
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      const text = (await res.body.text()).slice(0, 200);
      if (res.statusCode >= 200 && res.statusCode < 300)
        return { ok: true, value: { status: res.statusCode } };
      const retry = res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500;
      return failed(retry, `${sink} answered HTTP ${res.statusCode}: ${text}`);
    } catch (e) {
      const err = e as Error & { code?: string };
      return failed(true, `${sink} unreachable: ${err.code ?? err.name}`);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
