import {
  type ReceivedMessage,
  startWebhookReceiver,
  type WebhookReceiver,
} from "@quiesce/functions";
import { afterAll, beforeAll } from "vitest";
import type { z } from "zod";
import { ManualClock } from "../harness";
import { QuiesceWebhookMessage } from "./schemas";

/**
 * One loopback receiver of Teams, Slack and webhook messages for a test file (started before its
 * tests, stopped after), on a manual clock its coordinators share, whose sinks a test can make
 * fail for a while.
 */
export interface SinkReceiver {
  readonly receiver: WebhookReceiver;
  readonly clock: ManualClock;
  /** Per sink: answer with this status for the next N requests, then accept. */
  readonly failNext: Record<string, { n: number; status: number }>;
  readonly attemptsBySink: Record<string, number>;
  /** Coordinator settings that send to all three sinks, with `policy` as QUIESCE_POLICY. */
  sinkSettings(policy: unknown, extra?: Record<string, string>): Record<string, string>;
  /** The generic webhook's messages received since index `from`, parsed. */
  webhookMessages(from: number): z.output<typeof QuiesceWebhookMessage>[];
}

export function useSinkReceiver(secret: string): SinkReceiver {
  let started: WebhookReceiver | undefined;
  const clock = new ManualClock();
  const failNext: Record<string, { n: number; status: number }> = {};
  const attemptsBySink: Record<string, number> = {};
  beforeAll(async () => {
    started = await startWebhookReceiver({
      secret,
      now: () => clock.now(),
      respond: (m: ReceivedMessage) => {
        attemptsBySink[m.sink] = (attemptsBySink[m.sink] ?? 0) + 1;
        const f = failNext[m.sink];
        if (f && f.n > 0) {
          f.n--;
          return f.status;
        }
        return m.sink === "slack" ? 200 : 202;
      },
    });
  });
  afterAll(() => started?.stop());
  const receiver = () => {
    if (!started) throw new Error("the receiver starts in beforeAll");
    return started;
  };
  return {
    get receiver() {
      return receiver();
    },
    clock,
    failNext,
    attemptsBySink,
    sinkSettings: (policy, extra = {}) => ({
      QUIESCE_TEAMS_WEBHOOK_URL: receiver().url("teams"),
      QUIESCE_SLACK_WEBHOOK_URL: receiver().url("slack"),
      QUIESCE_WEBHOOK_URL: receiver().url("webhook"),
      QUIESCE_WEBHOOK_SECRET: secret,
      QUIESCE_POLICY: JSON.stringify(policy),
      ...extra,
    }),
    webhookMessages: (from) =>
      receiver()
        .received.slice(from)
        .filter((m) => m.sink === "webhook")
        .map((m) => QuiesceWebhookMessage.parse(m.body)),
  };
}
