import type { EventDetail } from "@quiesce/cli";

/**
 * How long safety gates held an event's approval, from the coordinator's history of it: from
 * its first "waiting for gate(s): …" note to "gates pass" or its next phase (an approver elected
 * in the round the gates passed), over every such stretch.
 */
export interface GateHold {
  /** The gates that failed at some point, in the order first seen. */
  gates: string[];
  /** Real seconds the event was held. */
  seconds: number;
}

const WAITING = "waiting for gate(s): ";
/** `app-health (HTTP 503), errors (alert rule is firing)` → app-health, errors. */
const GATE_NAME = /(?:^|, )([A-Za-z0-9._-]+) \(/g;

export function gateHold(timeline: EventDetail["timeline"]): GateHold | null {
  const gates: string[] = [];
  let since: number | null = null;
  let ms = 0;
  for (const t of timeline) {
    if (t.kind !== "transition") continue;
    const at = Date.parse(t.at);
    if (t.reason.startsWith(WAITING)) {
      since ??= at;
      for (const m of t.reason.slice(WAITING.length).matchAll(GATE_NAME))
        if (m[1] && !gates.includes(m[1])) gates.push(m[1]);
    } else if (since !== null && (t.reason === "gates pass" || t.to !== "Ready")) {
      ms += at - since;
      since = null;
    }
  }
  if (gates.length === 0) return null;
  return { gates, seconds: Math.round(ms / 100) / 10 };
}
