/**
 * How a notification's words are made safe for the sink that shows them. A Notification carries
 * text only, never markup: its title, sentence and facts hold event ids, VM names, hook output,
 * Azure's descriptions, rule and gate names, error messages, which relays, hooks, Azure and
 * policies wrote. So every one of its strings goes through one of these before a sink sees it,
 * and the only markup in a message is what payloads.ts writes itself (docs/security.md, section 7).
 */

/** U+2060 WORD JOINER: invisible, no line break, and not part of any URL an autolinker takes. */
const JOINER = "\u2060";

/**
 * Keeps chat clients from turning a URL or a `www.` address in outside text into a link: a word
 * joiner after the scheme's colon (and after `www`) leaves the text reading the same.
 */
export function unlinked(s: string): string {
  return s.replace(/:\/\//g, `:${JOINER}//`).replace(/\b(www)\./gi, `$1${JOINER}.`);
}

/**
 * Slack's three control characters as entities, so `<!channel>`, `<@U123>` and `<url|label>`
 * stay text (docs.slack.dev/messaging/formatting-message-text#escaping).
 */
export function slackEscaped(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * Cuts an escaped string to `max` characters (Slack counts what is sent) with an ellipsis, never
 * inside an entity: a cut `&am` would otherwise reach Slack as a bare `&`.
 */
export function cutEscaped(s: string, max: number): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max - 1).replace(/&[a-z]{0,3}$/, "")}…`;
}

/**
 * Plain text for Slack: control characters escaped, URLs unlinked, `@word` kept from being read
 * as a mention (`@channel`, `@here` where a client or setting parses names), cut to `max`.
 */
export const slackText = (s: string, max: number) =>
  cutEscaped(slackEscaped(unlinked(s).replace(/@(?=\w)/g, `@${JOINER}`)), max);

/**
 * Quiesce's own link in Slack mrkdwn, `<url|label>`: a `|` in the URL would end it early and is
 * percent-encoded; both halves have their control characters escaped.
 */
export function slackLink(url: string, label: string): string {
  return `<${slackEscaped(url.replaceAll("|", "%7C"))}|${slackEscaped(label)}>`;
}

/**
 * The status page's address for a notification, when the coordinator knows where its page is:
 * the event's own page for event news, the page itself for the rest. Cluster and event id are
 * percent-encoded, as the page's own links do (functions/page/views/phase.ts).
 */
export function statusPageLink(
  base: string | undefined,
  n: { cluster: string; eventId?: string },
): string | undefined {
  if (!base) return undefined;
  const url = new URL(base);
  url.hash = n.eventId
    ? `/events/${encodeURIComponent(n.cluster)}/${encodeURIComponent(n.eventId)}`
    : "/";
  return url.href;
}
