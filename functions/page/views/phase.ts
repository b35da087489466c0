import { h } from "../dom";

/**
 * The phase as a badge: text first (never colour alone), colour as a second cue. An advisory
 * event (a Spot rebalance recommendation) gets a second badge saying so: its phase never moves
 * past Observed, since there is nothing to drain or approve.
 */
export function phaseBadge(phase: string, advisory = false): HTMLElement {
  const badge = h("span", { class: `badge b-${phase}` }, phase);
  if (!advisory) return badge;
  return h(
    "span",
    { class: "badges" },
    badge,
    " ",
    h(
      "span",
      {
        class: "badge b-advisory",
        title: "Advisory: nothing to approve (acknowledging it has no effect)",
      },
      "Advisory",
    ),
  );
}

export function eventHref(cluster: string, eventId: string): string {
  return `#/events/${encodeURIComponent(cluster)}/${encodeURIComponent(eventId)}`;
}
