/**
 * Text a compromised VM, a chatty drain hook or Azure itself could hand Quiesce, aimed at the
 * markup of every place it is shown (Slack mrkdwn, Adaptive Card markdown, HTML), and the checks
 * that it reached Slack, Teams and the page as text: no mention, no link, no markup.
 */

/** One of each: Slack mentions and links, Teams (markdown) links, emphasis, heading, list, HTML. */
export const HOSTILE_MARKUP = [
  "<!channel>",
  "<!here>",
  "<@U123>",
  "@channel",
  "<https://evil.example|Approve here>",
  "[Open Quiesce](https://evil.example)",
  "**bold**",
  "# heading",
  "- list",
  "1. item",
  "`code`",
  "<b>x</b>",
  "&amp;",
] as const;

/** A hook's last output line or an event's description: each piece at the start of a line. */
export const HOSTILE_TEXT = HOSTILE_MARKUP.join("\n");

/**
 * An event id as a relay may send one (printable, at most 128 characters, protocol/src/names.ts),
 * carrying the mentions, links, emphasis and HTML that fit; `tag` tells events apart.
 */
export function hostileEventId(tag: string): string {
  const id = `${tag} <!channel> <@U123> <https://evil.example|Approve here> [Open Quiesce](https://evil.example) **b** <b>x</b> &amp;`;
  if (id.length > 128) throw new Error(`hostile event id is ${id.length} characters, over 128`);
  return id;
}

/** A VM name (any printable text) with a mention, a link and emphasis. */
export const HOSTILE_VM = "web-1 <!here> [Open](https://evil.example) **vm**";

/** What sinks insert to keep text from being autolinked or read as a mention (U+2060). */
export const withoutJoiners = (s: string) => s.replaceAll("\u2060", "");

/** Slack's three entities back to characters (`&amp;` last, so `&amp;lt;` stays `&lt;`). */
export const slackUnescaped = (s: string) =>
  s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");

/** Every string in a JSON value, with the path it sits at. */
export function stringsIn(v: unknown, path = "$"): Array<{ path: string; text: string }> {
  if (typeof v === "string") return [{ path, text: v }];
  if (Array.isArray(v)) return v.flatMap((x, i) => stringsIn(x, `${path}[${i}]`));
  if (v && typeof v === "object")
    return Object.entries(v).flatMap(([k, x]) => stringsIn(x, `${path}.${k}`));
  return [];
}

/** An attacker's address left whole, which a client could turn into a link. */
const LIVE_URL = /https?:\/\/evil/i;
/** A ping Slack can read in plain words where names are parsed (`@channel`, `@here`). */
const LIVE_PING = /@(channel|here)\b/i;

/**
 * What in a Slack message could act as markup: a raw `<`/`>` (mention, link, `<!…>` command) or
 * a bare `&` in any text, a mrkdwn object that is not Quiesce's own context line (or lacks
 * `verbatim`), a live link or ping. `ownLink` is the status page's address, the one link allowed.
 */
export function slackProblems(body: unknown, ownLink?: string): string[] {
  const problems: string[] = [];
  const own =
    /^Quiesce · [A-Za-z]+ · \d{4}-\d\d-\d\dT[\d:.]+Z(?: · <([^|<>]+)\|Open in the status page>)?$/;
  const visit = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) visit(x, `${path}[${i}]`);
    } else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "mrkdwn") {
        const m = own.exec(String(o.text));
        if (!m) problems.push(`${path}: mrkdwn other than Quiesce's context line: ${o.text}`);
        else if (m[1] !== undefined && !(ownLink && m[1].startsWith(ownLink)))
          problems.push(`${path}: a link not to the status page: ${m[1]}`);
        if (o.verbatim !== true) problems.push(`${path}: mrkdwn without verbatim`);
        return;
      }
      for (const [k, x] of Object.entries(o)) visit(x, `${path}.${k}`);
    } else if (typeof v === "string" && /\.text$/.test(path)) {
      if (/[<>]/.test(v)) problems.push(`${path}: raw < or > in ${JSON.stringify(v)}`);
      if (/&(?!amp;|lt;|gt;)/.test(v)) problems.push(`${path}: bare & in ${JSON.stringify(v)}`);
    }
  };
  visit(body, "$");
  for (const { path, text } of stringsIn(body))
    for (const re of [LIVE_URL, LIVE_PING])
      if (re.test(text)) problems.push(`${path}: live ${re} in ${text}`);
  return problems;
}

/**
 * What in a Teams card could act as markup: any element that reads markdown (TextBlock and
 * FactSet do, in Teams) instead of RichTextBlock/TextRun, an action not to the status page, a
 * live link. (Teams mentions need the card's `msteams.entities`; `@channel` text is only text.)
 */
export function teamsProblems(body: unknown, ownLink?: string): string[] {
  const problems: string[] = [];
  const card = (body as { attachments?: Array<{ content?: Record<string, unknown> }> })
    .attachments?.[0]?.content;
  for (const [i, el] of ((card?.body as Array<{ type: string }>) ?? []).entries())
    if (el.type !== "RichTextBlock") problems.push(`body[${i}]: ${el.type} reads markdown`);
  for (const a of (card?.actions as Array<{ url: string }>) ?? [])
    if (!(ownLink && a.url.startsWith(ownLink))) problems.push(`action to ${a.url}`);
  for (const { path, text } of stringsIn(card))
    if (LIVE_URL.test(text)) problems.push(`${path}: live ${LIVE_URL} in ${text}`);
  return problems;
}
