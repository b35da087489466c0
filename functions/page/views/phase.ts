import { h } from "../dom";

/** The phase as a badge: text first (never colour alone), colour as a second cue. */
export function phaseBadge(phase: string): HTMLElement {
  return h("span", { class: `badge b-${phase}` }, phase);
}

export function eventHref(cluster: string, eventId: string): string {
  return `#/events/${encodeURIComponent(cluster)}/${encodeURIComponent(eventId)}`;
}
