import type { Notification } from "@quiesce/functions";
import {
  Sinks,
  startWebhookReceiver,
  verifySignature,
  type WebhookReceiver,
} from "@quiesce/functions";
import {
  QuiesceWebhookMessage,
  SlackWebhookMessage,
  TeamsWorkflowMessage,
} from "@quiesce/testkit/notifications";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SECRET = "k".repeat(40);

const notification = (over: Partial<Notification> = {}): Notification => ({
  key: "event|abc|approved",
  cluster: "web",
  kind: "approved",
  severity: "info",
  at: Date.parse("2026-11-23T05:01:00Z"),
  title: "web: Freeze approved",
  text: "Event ABC approved by web-1 under rule allDrained, 840 s before NotBefore.",
  facts: [
    { name: "Event", value: "ABC" },
    { name: "Rule", value: "allDrained" },
  ],
  eventId: "ABC",
  ...over,
});

describe("notification sinks over real loopback HTTP", () => {
  let receiver: WebhookReceiver;
  let sinks: Sinks;
  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
    sinks = new Sinks({
      teamsUrl: receiver.url("teams"),
      slackUrl: receiver.url("slack"),
      webhookUrl: receiver.url("webhook"),
      webhookSecret: SECRET,
    });
  });
  afterAll(async () => {
    await sinks.close();
    await receiver.stop();
  });

  it("posts Teams a Workflows message carrying an Adaptive Card with the facts", async () => {
    expect(await sinks.send("teams", notification(), "d-1", Date.now())).toEqual({
      ok: true,
      value: { status: 202 },
    });
    const m = receiver.received.at(-1);
    const card = TeamsWorkflowMessage.parse(m?.body).attachments[0]?.content;
    expect(JSON.stringify(card)).toContain("allDrained");
  });

  it("posts Slack Block Kit within its limits, even for an overlong title and many facts", async () => {
    const long = notification({
      title: `web: ${"x".repeat(400)}`,
      facts: Array.from({ length: 25 }, (_, i) => ({ name: `vm-${i}`, value: "y".repeat(3000) })),
    });
    expect((await sinks.send("slack", long, "d-2", Date.now())).ok).toBe(true);
    const body = SlackWebhookMessage.parse(receiver.received.at(-1)?.body);
    expect(body.blocks[0]).toMatchObject({ type: "header" });
  });

  it("signs the generic webhook so the documented check accepts it, and a tampered body fails it", async () => {
    expect((await sinks.send("webhook", notification(), "d-3", Date.now())).ok).toBe(true);
    const m = receiver.received.at(-1);
    expect(m?.signatureValid).toBe(true);
    const body = QuiesceWebhookMessage.parse(m?.body);
    expect(body).toMatchObject({ id: "d-3", kind: "approved", eventId: "ABC" });
    const text = JSON.stringify(m?.body);
    expect(verifySignature(SECRET, m?.headers ?? {}, `${text} `)).toBe(false);
    expect(verifySignature("other-key".repeat(5), m?.headers ?? {}, text)).toBe(false);
  });

  it("a receiver that refuses the signature (wrong key) is a failure not worth retrying", async () => {
    const wrong = new Sinks({ webhookUrl: receiver.url("webhook"), webhookSecret: "z".repeat(40) });
    const r = await wrong.send("webhook", notification(), "d-4", Date.now());
    await wrong.close();
    expect(r).toMatchObject({ ok: false, error: { retry: false } });
    expect(JSON.stringify(r)).not.toContain("127.0.0.1"); // errors never carry the (secret) URL
  });

  it("an unreachable sink is retryable and its error names no URL", async () => {
    const gone = new Sinks({ slackUrl: "http://127.0.0.1:9/slack" });
    const r = await gone.send("slack", notification(), "d-5", Date.now());
    await gone.close();
    expect(r).toMatchObject({ ok: false, error: { retry: true } });
    expect(JSON.stringify(r)).not.toContain("/slack");
  });
});
