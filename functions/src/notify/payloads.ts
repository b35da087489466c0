import { createHmac } from "node:crypto";
import type { Notification } from "./due";

/**
 * What each sink receives, built from one Notification. Pure; the shapes follow the public docs:
 * - Teams: a Workflows "post to a channel when a webhook request is received" trigger takes a
 *   message activity whose attachment is an Adaptive Card (contentType
 *   application/vnd.microsoft.card.adaptive).
 * - Slack: an incoming webhook takes `text` (the notification fallback) and Block Kit `blocks`
 *   (header text <= 150 characters, section text <= 3000, <= 10 fields of <= 2000).
 * - Generic webhook: the notification as JSON, signed with HMAC-SHA256 over `<timestamp>.<body>`
 *   (docs/operations.md shows the check), so a receiver can reject forgeries and replays.
 */

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

const COLOR = { info: "Good", warning: "Warning", critical: "Attention" } as const;

export function teamsPayload(n: Notification) {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            {
              type: "TextBlock",
              text: n.title,
              weight: "Bolder",
              size: "Medium",
              color: COLOR[n.severity],
              wrap: true,
            },
            { type: "TextBlock", text: n.text, wrap: true },
            { type: "FactSet", facts: n.facts.map((f) => ({ title: f.name, value: f.value })) },
          ],
        },
      },
    ],
  };
}

export function slackPayload(n: Notification) {
  const icon = { info: ":information_source:", warning: ":warning:", critical: ":rotating_light:" }[
    n.severity
  ];
  return {
    text: cut(`${n.title}: ${n.text}`, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: cut(n.title, 150), emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: cut(`${icon} ${n.text}`, 3000) } },
      ...(n.facts.length > 0
        ? [
            {
              type: "section",
              fields: n.facts
                .slice(0, 10)
                .map((f) => ({ type: "mrkdwn", text: cut(`*${f.name}*\n${f.value}`, 2000) })),
            },
          ]
        : []),
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: cut(`Quiesce · ${n.kind} · ${new Date(n.at).toISOString()}`, 3000),
          },
        ],
      },
    ],
  };
}

export function webhookPayload(n: Notification, deliveryId: string) {
  return {
    id: deliveryId,
    kind: n.kind,
    severity: n.severity,
    cluster: n.cluster,
    at: new Date(n.at).toISOString(),
    title: n.title,
    text: n.text,
    facts: n.facts,
    ...(n.eventId ? { eventId: n.eventId } : {}),
    ...(n.vm ? { vm: n.vm } : {}),
  };
}

export const SIGNATURE_HEADER = "x-quiesce-signature";
export const TIMESTAMP_HEADER = "x-quiesce-timestamp";
export const DELIVERY_HEADER = "x-quiesce-delivery";

/** `sha256=<hex>` of HMAC-SHA256(key, `${timestampSeconds}.${body}`). */
export function sign(key: string, timestampSeconds: number, body: string): string {
  return `sha256=${createHmac("sha256", key).update(`${timestampSeconds}.${body}`).digest("hex")}`;
}
