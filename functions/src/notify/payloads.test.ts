import { describe, expect, it } from "vitest";
import type { Notification } from "./due";
import { slackPayload, teamsPayload, webhookPayload } from "./payloads";
import { cutEscaped, slackLink, slackText, statusPageLink, unlinked } from "./sinkText";

/** How notification text is made safe for each sink (sinkText.ts) and where payloads.ts puts it. */

const J = "\u2060";
const n = (over: Partial<Notification> = {}): Notification => ({
  key: "event|e1|observed",
  cluster: "web",
  kind: "observed",
  severity: "info",
  at: Date.parse("2026-11-23T05:00:00Z"),
  title: "web: Freeze scheduled",
  text: "Event <!channel> announced; hook said **bold** [x](https://evil.example)",
  facts: [{ name: "Event", value: "<@U123> & <https://evil.example|Approve here>" }],
  eventId: "E1 <!here>|x",
  ...over,
});

describe("sink text", () => {
  it("escapes Slack's three control characters, & first, and nothing else", () => {
    expect(slackText("<!channel> & &amp; <b>*x*</b>", 3000)).toBe(
      "&lt;!channel&gt; &amp; &amp;amp; &lt;b&gt;*x*&lt;/b&gt;",
    );
  });

  it("keeps URLs, www. addresses and @words from being linked or pinged, reading the same", () => {
    expect(unlinked("see https://evil.example and WWW.evil.example")).toBe(
      `see https:${J}//evil.example and WWW${J}.evil.example`,
    );
    expect(slackText("@channel @here a@b", 100)).toBe(`@${J}channel @${J}here a@${J}b`);
  });

  it("cuts escaped text to the limit without leaving half an entity", () => {
    // "ab&lt;&lt;…" cut at 5 characters ends inside the first entity: the fragment goes.
    expect(cutEscaped(slackText("ab<<<<", 100), 6)).toBe("ab…");
    expect(cutEscaped(slackText("abc<<<", 100), 10)).toBe("abc&lt;…");
    expect(cutEscaped("short", 10)).toBe("short");
  });

  it("builds Quiesce's own Slack link with the URL's | encoded and both halves escaped", () => {
    expect(slackLink("https://q.example/a|b?x=1&y=<2>", "Open")).toBe(
      "<https://q.example/a%7Cb?x=1&amp;y=&lt;2&gt;|Open>",
    );
  });

  it("links event news to the event's page, the id percent-encoded, and the rest to the page", () => {
    const base = "https://q.example/api/ui#/old";
    const link = statusPageLink(base, { cluster: "web", eventId: "E1 <!here>|[x](y)" });
    expect(link).toBe(
      `https://q.example/api/ui#/events/web/${encodeURIComponent("E1 <!here>|[x](y)")}`,
    );
    expect(link).not.toMatch(/[<>|\s]/);
    expect(statusPageLink(base, { cluster: "web" })).toBe("https://q.example/api/ui#/");
    expect(statusPageLink(undefined, { cluster: "web", eventId: "E1" })).toBeUndefined();
  });
});

describe("payloads", () => {
  it("Teams: every word in a TextRun (no markdown read), URLs unlinked, one action to the page", () => {
    const card = teamsPayload(n(), { statusPage: "https://q.example/api/ui" }).attachments[0]
      ?.content;
    expect(card?.body.map((b) => b.type)).toEqual([
      "RichTextBlock",
      "RichTextBlock",
      "RichTextBlock",
    ]);
    expect(card?.body[1]?.inlines).toEqual([
      {
        type: "TextRun",
        text: `Event <!channel> announced; hook said **bold** [x](https:${J}//evil.example)`,
      },
    ]);
    expect(card?.body[2]?.inlines.map((r) => r.text)).toEqual([
      "Event: ",
      `<@U123> & <https:${J}//evil.example|Approve here>`,
    ]);
    expect(card?.actions).toEqual([
      {
        type: "Action.OpenUrl",
        title: "Open in the status page",
        url: `https://q.example/api/ui#/events/web/${encodeURIComponent("E1 <!here>|x")}`,
      },
    ]);
    expect(teamsPayload(n()).attachments[0]?.content.actions).toBeUndefined();
  });

  it("Slack: the notification's text only in escaped plain_text, mrkdwn only for Quiesce's context line", () => {
    const body = slackPayload(n(), { statusPage: "https://q.example/api/ui" });
    expect(body.blocks[1]).toEqual({
      type: "section",
      text: {
        type: "plain_text",
        text: `:information_source: Event &lt;!channel&gt; announced; hook said **bold** [x](https:${J}//evil.example)`,
        emoji: true,
      },
    });
    expect(body.blocks[2]).toEqual({
      type: "section",
      fields: [
        { type: "plain_text", text: "Event", emoji: false },
        {
          type: "plain_text",
          text: `&lt;@${J}U123&gt; &amp; &lt;https:${J}//evil.example|Approve here&gt;`,
          emoji: false,
        },
      ],
    });
    expect(body.blocks[3]).toEqual({
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          verbatim: true,
          text: `Quiesce · observed · 2026-11-23T05:00:00.000Z · <https://q.example/api/ui#/events/web/${encodeURIComponent("E1 <!here>|x")}|Open in the status page>`,
        },
      ],
    });
    expect(body.text).not.toMatch(/[<>]/);
  });

  it("Slack: facts two columns, five to a section, twenty at most; an empty value shows '-'", () => {
    const facts = Array.from({ length: 23 }, (_, i) => ({ name: `f${i}`, value: i ? "v" : "" }));
    const body = slackPayload(n({ facts }));
    const fields = body.blocks.flatMap((b) => ("fields" in b && b.fields ? [b.fields] : []));
    expect(fields.map((f) => f.length)).toEqual([10, 10, 10, 10]);
    expect(fields[0]?.[1]?.text).toBe("-");
  });

  it("the generic webhook keeps every value raw: its receiver decides", () => {
    const w = webhookPayload(n(), "d-1");
    expect(w).toMatchObject({ text: n().text, facts: n().facts, eventId: "E1 <!here>|x" });
  });
});
