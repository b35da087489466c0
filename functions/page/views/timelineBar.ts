import { h } from "../dom";
import { clock } from "../model/format";
import type { TimelineBar } from "../model/timeline";

const PHASE_CLASS: Record<string, string> = {
  Observed: "p-wait",
  Draining: "p-drain",
  Ready: "p-ready",
  Approving: "p-approve",
  Started: "p-started",
  Recovering: "p-recover",
  Completed: "p-done",
  Cancelled: "p-cancel",
  Unplanned: "p-miss",
  ExpiredAtNotBefore: "p-miss",
};

/** The bar: one coloured stretch per phase, NotBefore as a tick; the text alternative lists both. */
export function timelineBar(bar: TimelineBar, compact = false): HTMLElement {
  const words = [
    ...bar.segments.map((s) => `${s.phase} from ${clock(new Date(s.start).toISOString())}`),
    ...bar.markers.map((m) => `${m.label} at ${clock(new Date(m.at).toISOString())}`),
  ].join("; ");
  return h(
    "div",
    {
      class: `timeline${compact ? " compact" : ""}`,
      role: "img",
      "aria-label": `Timeline: ${words}`,
    },
    bar.segments.map((s) =>
      h("span", {
        class: `seg ${PHASE_CLASS[s.phase] ?? "p-wait"}`,
        style: `left:${s.leftPct}%;width:${s.widthPct}%`,
        title: `${s.phase}: ${clock(new Date(s.start).toISOString())} → ${clock(new Date(s.end).toISOString())}`,
      }),
    ),
    bar.markers.map((m) =>
      h(
        "span",
        {
          class: "marker",
          style: `left:${m.leftPct}%`,
          title: `${m.label} ${clock(new Date(m.at).toISOString())}`,
        },
        h("span", { class: "marker-label" }, m.label),
      ),
    ),
  );
}

/** The legend under a full timeline. */
export function legend(phases: readonly string[]): HTMLElement {
  return h(
    "ul",
    { class: "legend" },
    [...new Set(phases)].map((p) =>
      h("li", {}, h("span", { class: `swatch ${PHASE_CLASS[p] ?? "p-wait"}` }), p),
    ),
  );
}
