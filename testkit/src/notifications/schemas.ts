import { z } from "zod";

/**
 * What the receiving services accept, written from their public docs (not from our code), so a
 * payload that drifts from them fails here before it fails in a channel.
 */

/** Adaptive Card 1.4 elements we may send (adaptivecards.io schema: TextBlock, FactSet). */
const TextBlock = z.looseObject({
  type: z.literal("TextBlock"),
  text: z.string().min(1),
  wrap: z.boolean().optional(),
  weight: z.enum(["Default", "Lighter", "Bolder"]).optional(),
  size: z.enum(["Default", "Small", "Medium", "Large", "ExtraLarge"]).optional(),
  color: z.enum(["Default", "Dark", "Light", "Accent", "Good", "Warning", "Attention"]).optional(),
});
const FactSet = z.looseObject({
  type: z.literal("FactSet"),
  facts: z.array(z.strictObject({ title: z.string(), value: z.string() })),
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
          body: z.array(z.discriminatedUnion("type", [TextBlock, FactSet])).min(1),
        }),
      }),
    )
    .min(1),
});

/** Slack Block Kit text objects and the blocks we may send, with their documented limits. */
const plainText = (max: number) =>
  z.strictObject({
    type: z.literal("plain_text"),
    text: z.string().min(1).max(max),
    emoji: z.boolean().optional(),
  });
const mrkdwn = (max: number) =>
  z.strictObject({ type: z.literal("mrkdwn"), text: z.string().min(1).max(max) });
const SlackBlock = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("header"),
    text: plainText(150),
    block_id: z.string().max(255).optional(),
  }),
  z
    .strictObject({
      type: z.literal("section"),
      text: mrkdwn(3000).optional(),
      fields: z.array(mrkdwn(2000)).min(1).max(10).optional(),
    })
    .refine((s) => s.text || s.fields, "a section needs text or fields"),
  z.strictObject({ type: z.literal("context"), elements: z.array(mrkdwn(3000)).min(1).max(10) }),
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
