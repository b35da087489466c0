import { z } from "zod";

/**
 * What the receiving services accept, written from their public docs (not from our code), so a
 * payload that drifts from them fails here before it fails in a channel.
 */

/**
 * Adaptive Card 1.4 elements we may send (adaptivecards.io schema: TextBlock, FactSet,
 * RichTextBlock of TextRuns, Action.OpenUrl).
 */
const Color = z.enum(["Default", "Dark", "Light", "Accent", "Good", "Warning", "Attention"]);
const Weight = z.enum(["Default", "Lighter", "Bolder"]);
const Size = z.enum(["Default", "Small", "Medium", "Large", "ExtraLarge"]);
const Spacing = z.enum(["None", "Small", "Default", "Medium", "Large", "ExtraLarge", "Padding"]);
const TextBlock = z.looseObject({
  type: z.literal("TextBlock"),
  text: z.string().min(1),
  wrap: z.boolean().optional(),
  weight: Weight.optional(),
  size: Size.optional(),
  color: Color.optional(),
});
const FactSet = z.looseObject({
  type: z.literal("FactSet"),
  facts: z.array(z.strictObject({ title: z.string(), value: z.string() })),
});
/** TextRun (1.2): "Markdown is not supported" in its text. */
const TextRun = z.strictObject({
  type: z.literal("TextRun"),
  text: z.string().min(1),
  weight: Weight.optional(),
  size: Size.optional(),
  color: Color.optional(),
  isSubtle: z.boolean().optional(),
  italic: z.boolean().optional(),
  fontType: z.enum(["Default", "Monospace"]).optional(),
});
const RichTextBlock = z.strictObject({
  type: z.literal("RichTextBlock"),
  inlines: z.array(TextRun).min(1),
  spacing: Spacing.optional(),
});
const OpenUrl = z.strictObject({
  type: z.literal("Action.OpenUrl"),
  title: z.string().min(1),
  url: z.url(),
});

/**
 * Teams Workflows "When a Teams webhook request is received" → "Post card in a chat or channel":
 * a message activity whose attachments carry Adaptive Cards
 * (contentType application/vnd.microsoft.card.adaptive, content the card itself).
 */
export const TeamsWorkflowMessage = z.strictObject({
  type: z.literal("message"),
  attachments: z
    .array(
      z.strictObject({
        contentType: z.literal("application/vnd.microsoft.card.adaptive"),
        contentUrl: z.null().optional(),
        content: z.looseObject({
          $schema: z.literal("http://adaptivecards.io/schemas/adaptive-card.json").optional(),
          type: z.literal("AdaptiveCard"),
          version: z.string().regex(/^1\.[0-5]$/),
          body: z.array(z.discriminatedUnion("type", [TextBlock, FactSet, RichTextBlock])).min(1),
          actions: z.array(OpenUrl).optional(),
        }),
      }),
    )
    .min(1),
});

/**
 * Slack Block Kit text objects and the blocks we may send, with their documented limits
 * (`verbatim` only on mrkdwn, `emoji` only on plain_text).
 */
const plainText = (max: number) =>
  z.strictObject({
    type: z.literal("plain_text"),
    text: z.string().min(1).max(max),
    emoji: z.boolean().optional(),
  });
const mrkdwn = (max: number) =>
  z.strictObject({
    type: z.literal("mrkdwn"),
    text: z.string().min(1).max(max),
    verbatim: z.boolean().optional(),
  });
const text = (max: number) => z.discriminatedUnion("type", [plainText(max), mrkdwn(max)]);
const SlackBlock = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("header"),
    text: plainText(150),
    block_id: z.string().max(255).optional(),
  }),
  z
    .strictObject({
      type: z.literal("section"),
      text: text(3000).optional(),
      fields: z.array(text(2000)).min(1).max(10).optional(),
    })
    .refine((s) => s.text || s.fields, "a section needs text or fields"),
  z.strictObject({ type: z.literal("context"), elements: z.array(text(3000)).min(1).max(10) }),
  z.strictObject({ type: z.literal("divider") }),
]);

/** Slack incoming webhook: `text` is the notification fallback when `blocks` are given; <= 50 blocks. */
export const SlackWebhookMessage = z.strictObject({
  text: z.string().min(1),
  blocks: z.array(SlackBlock).min(1).max(50),
});

/** Our generic webhook, as docs/operations.md documents it. */
export const QuiesceWebhookMessage = z.strictObject({
  id: z.string().min(1),
  kind: z.string().min(1),
  severity: z.enum(["info", "warning", "critical"]),
  cluster: z.string().min(1),
  at: z.iso.datetime(),
  title: z.string().min(1),
  text: z.string().min(1),
  facts: z.array(z.strictObject({ name: z.string(), value: z.string() })),
  eventId: z.string().optional(),
  vm: z.string().optional(),
});
