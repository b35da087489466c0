import { createHmac } from "node:crypto";
import type { Notification } from "./due";
import { slackLink, slackText, statusPageLink, unlinked } from "./sinkText";

/**
 * What each sink receives, built from one Notification. Pure; the shapes follow the public docs:
 * - Teams: a Workflows "post to a channel when a webhook request is received" trigger takes a
 *   message activity whose attachment is an Adaptive Card (contentType
 *   application/vnd.microsoft.card.adaptive).
 * - Slack: an incoming webhook takes `text` (the notification fallback) and Block Kit `blocks`
 *   (header text <= 150 characters, section text <= 3000, <= 10 fields of <= 2000).
 * - Generic webhook: the notification as JSON, signed with HMAC-SHA256 over `<timestamp>.<body>`
 *   (docs/operations.md shows the check), so a receiver can reject forgeries and replays.
 *
 * A Notification's strings are text from outside Quiesce's own words (event ids, VM names, hook
 * output, descriptions...), so Teams and Slack get them where no markup is read, escaped for
 * that sink (sinkText.ts); the markup here (bold labels, the status-page link) is Quiesce's own.
 * The generic webhook carries them raw: its receiver decides.
 */

/** Where Quiesce's own links point; absent, messages carry none. */
export interface MessageLinks {
  /** The status page (`…/api/ui`); event news links to the event's own page. */
  statusPage?: string;
}

const COLOR = { info: "Good", warning: "Warning", critical: "Attention" } as const;

/**
 * A TextRun shows its text as is: Adaptive Cards read no markdown in one (schema, TextRun:
 * "Markdown is not supported"), where Teams reads it in TextBlock and in FactSet titles and values.
 * An empty run is shown as "-".
 */
const run = (text: string, style: Record<string, string> = {}) => ({
  type: "TextRun" as const,
  text: unlinked(text) || "-",
  ...style,
});
const line = (inlines: ReturnType<typeof run>[], spacing?: "Small") => ({
  type: "RichTextBlock" as const,
  inlines,
  ...(spacing ? { spacing } : {}),
});

export function teamsPayload(n: Notification, links: MessageLinks = {}) {
  const page = statusPageLink(links.statusPage, n);
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
            line([run(n.title, { weight: "Bolder", size: "Medium", color: COLOR[n.severity] })]),
            line([run(n.text)]),
            ...n.facts.map((f, i) =>
              line(
                [run(`${f.name}: `, { weight: "Bolder" }), run(f.value)],
                i > 0 ? "Small" : undefined,
              ),
            ),
          ],
          ...(page
            ? { actions: [{ type: "Action.OpenUrl", title: "Open in the status page", url: page }] }
            : {}),
        },
      },
    ],
  };
}

const ICON = { info: ":information_source:", warning: ":warning:", critical: ":rotating_light:" };
/** Slack section fields, two columns: a fact's name beside its value. */
const FACTS_PER_SECTION = 5;
const MAX_FACTS = 20;

/**
 * Slack's plain_text shows no mrkdwn (no emphasis, no links, no mentions); its control
 * characters are still escaped as Slack asks of every text field.
 */
const plain = (s: string, max: number, emoji = false) => ({
  type: "plain_text" as const,
  text: slackText(s, max) || "-",
  emoji,
});

export function slackPayload(n: Notification, links: MessageLinks = {}) {
  const page = statusPageLink(links.statusPage, n);
  const facts = n.facts.slice(0, MAX_FACTS);
  const sections = [];
  for (let i = 0; i < facts.length; i += FACTS_PER_SECTION)
    sections.push({
      type: "section" as const,
      fields: facts
        .slice(i, i + FACTS_PER_SECTION)
        .flatMap((f) => [plain(f.name, 2000), plain(f.value, 2000)]),
    });
  // Quiesce's own words only: the kind is one of NOTIFICATION_KINDS, the time is ours.
  const context = `Quiesce · ${n.kind} · ${new Date(n.at).toISOString()}${page ? ` · ${slackLink(page, "Open in the status page")}` : ""}`;
  return {
    text: slackText(`${n.title}: ${n.text}`, 3000),
    blocks: [
      { type: "header", text: plain(n.title, 150, true) },
      { type: "section", text: plain(`${ICON[n.severity]} ${n.text}`, 3000, true) },
      ...sections,
      { type: "context", elements: [{ type: "mrkdwn", text: context, verbatim: true }] },
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
