import { EventIdText } from "../names";
import { type ImdsProblem, MAX_IMDS_PROBLEMS } from "./problems";
import {
  KNOWN_EVENT_TYPES,
  parseNotBefore,
  type ScheduledEvent,
  ScheduledEventsDocument,
} from "./scheduledEvents";

/**
 * The relay's reading of a Scheduled Events document: one event at a time, so one odd field never
 * hides the others. What is unambiguous is coerced (a numeric string for a number, the case of a
 * known enum value, a NotBefore with an explicit time zone in another textual form); an event is
 * kept as long as its EventId, EventStatus and Resources can be read, its other odd fields dropped
 * and reported. What still cannot be read comes back as problems the relay reports to the
 * coordinator (protocol 1.1). The output always satisfies the strict `ScheduledEventsDocument`,
 * which the coordinator keeps enforcing at its boundary.
 */

export interface LenientRead {
  /** null when no document can be made of the input at all. */
  document: ScheduledEventsDocument | null;
  problems: ImdsProblem[];
}

const MAX_EVENTS = 100;
const EVENT_STATUSES = ["Scheduled", "Started"] as const;
const EVENT_SOURCES = ["Platform", "User"] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const show = (v: unknown): string => {
  const text = v === undefined ? "absent" : JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Integers Azure documents as numbers; the docs' own sample runs int() on DurationInSeconds. */
function integer(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  if (typeof v === "string" && /^\s*-?\d{1,15}\s*$/.test(v)) return Number(v.trim());
  return undefined;
}

/** The canonical spelling of a known value, compared without regard to case and surrounding blanks. */
function known<T extends string>(v: unknown, values: readonly T[]): T | undefined {
  if (typeof v !== "string") return undefined;
  const wanted = v.trim().toLowerCase();
  return values.find((k) => k.toLowerCase() === wanted);
}

// A textual time carrying its own zone (GMT, UTC, Z or an offset) is unambiguous whatever its
// layout; one without a zone (local time of which machine?) is not.
const HAS_ZONE = /(GMT|UTC|Z|[+-]\d{2}:?\d{2})\s*$/i;

/**
 * NotBefore as `ScheduledEventsDocument` accepts it: RFC 1123 or ISO 8601 as served, "" when
 * absent or empty, another zoned form rewritten to RFC 1123; `undefined` when it cannot be read.
 */
export function readNotBefore(v: unknown): string | undefined {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") return undefined;
  const text = v.trim();
  if (parseNotBefore(text) !== undefined) return text;
  if (!HAS_ZONE.test(text)) return undefined;
  const ms = Date.parse(text.replace(/\bUTC$/i, "GMT"));
  return Number.isNaN(ms) ? undefined : new Date(ms).toUTCString();
}

export function parseScheduledEventsLeniently(input: unknown): LenientRead {
  const problems: ImdsProblem[] = [];
  const note = (p: ImdsProblem) => {
    if (problems.length < MAX_IMDS_PROBLEMS) problems.push(p);
  };
  const unreadable = (detail: string): LenientRead => {
    note({ kind: "document", detail });
    return { document: null, problems };
  };
  if (!isObj(input)) return unreadable(`the document is not a JSON object: ${show(input)}`);
  const incarnation = integer(input.DocumentIncarnation);
  if (incarnation === undefined || incarnation < 0)
    return unreadable(
      `DocumentIncarnation is not a non-negative integer: ${show(input.DocumentIncarnation)}`,
    );
  const rawEvents = input.Events ?? null;
  if (!Array.isArray(rawEvents)) return unreadable(`Events is not an array: ${show(input.Events)}`);
  if (rawEvents.length > MAX_EVENTS)
    note({
      kind: "document",
      detail: `${rawEvents.length} events; only the first ${MAX_EVENTS} are read`,
    });

  const events: ScheduledEvent[] = [];
  rawEvents.slice(0, MAX_EVENTS).forEach((raw, i) => {
    const ev = readEvent(raw, `Events[${i}]`, note);
    if (ev) events.push(ev);
  });
  const document = { ...input, DocumentIncarnation: incarnation, Events: events };
  // The contract with the coordinator's strict boundary, checked rather than assumed.
  const checked = ScheduledEventsDocument.safeParse(document);
  if (!checked.success)
    return unreadable(`normalised document still invalid: ${checked.error.issues[0]?.message}`);
  return { document: checked.data, problems };
}

function readEvent(
  raw: unknown,
  where: string,
  note: (p: ImdsProblem) => void,
): ScheduledEvent | undefined {
  if (!isObj(raw)) {
    note({ kind: "event", field: where, detail: `${where} is not an object: ${show(raw)}` });
    return undefined;
  }
  const id = EventIdText.safeParse(typeof raw.EventId === "string" ? raw.EventId.trim() : null);
  if (!id.success) {
    note({
      kind: "event",
      field: `${where}.EventId`,
      detail: `EventId unreadable: ${show(raw.EventId)}`,
    });
    return undefined;
  }
  const eventId = id.data;
  const status = known(raw.EventStatus, EVENT_STATUSES);
  if (!status) {
    note({
      kind: "event",
      eventId,
      field: "EventStatus",
      detail: `EventStatus unreadable: ${show(raw.EventStatus)}`,
    });
    return undefined;
  }
  const resources = raw.Resources;
  if (
    !Array.isArray(resources) ||
    resources.length > 1000 ||
    !resources.every((r) => typeof r === "string" && r.trim().length > 0 && r.length <= 256)
  ) {
    note({
      kind: "event",
      eventId,
      field: "Resources",
      detail: `Resources unreadable: ${show(resources)}`,
    });
    return undefined;
  }
  const dropped = (field: string, value: unknown, extra = "") =>
    note({ kind: "field", eventId, field, detail: `${field} unreadable${extra}: ${show(value)}` });

  const { EventType, ResourceType, NotBefore, Description, EventSource, DurationInSeconds } = raw;
  let eventType =
    known(EventType, KNOWN_EVENT_TYPES) ?? (typeof EventType === "string" ? EventType.trim() : "");
  if (eventType === "" || eventType.length > 64) {
    dropped("EventType", EventType, "; kept as Unknown, which no policy rule names");
    eventType = "Unknown";
  }
  const ev: ScheduledEvent = {
    ...raw,
    EventId: eventId,
    EventType: eventType,
    Resources: resources.map((r: string) => r.trim()),
    EventStatus: status,
    NotBefore: "",
  };
  if (typeof ResourceType === "string" && ResourceType.length <= 64) ev.ResourceType = ResourceType;
  else if (ResourceType !== undefined && ResourceType !== null) {
    delete ev.ResourceType;
    dropped("ResourceType", ResourceType);
  }
  const notBefore = readNotBefore(NotBefore);
  if (notBefore === undefined)
    dropped(
      "NotBefore",
      NotBefore,
      status === "Scheduled" ? "; drained at once and treated as due now" : "",
    );
  ev.NotBefore = notBefore ?? "";
  if (typeof Description === "string") ev.Description = Description.slice(0, 4096);
  else if (Description !== undefined && Description !== null) {
    delete ev.Description;
    dropped("Description", Description);
  }
  const source = known(EventSource, EVENT_SOURCES);
  if (source) ev.EventSource = source;
  else if (typeof EventSource === "string" && EventSource.length <= 64)
    ev.EventSource = EventSource;
  else if (EventSource !== undefined && EventSource !== null) {
    delete ev.EventSource;
    dropped("EventSource", EventSource);
  }
  const duration = integer(DurationInSeconds);
  if (duration !== undefined && duration >= -1) ev.DurationInSeconds = duration;
  else if (DurationInSeconds !== undefined && DurationInSeconds !== null) {
    delete ev.DurationInSeconds;
    dropped("DurationInSeconds", DurationInSeconds);
  }
  return ev;
}

/**
 * An event that could not be read is not an event that left: treating it as gone would run the
 * recover hook and tell the coordinator the maintenance ended or was cancelled. So the events of
 * the previous document that are missing from this one are carried over as last read when an
 * unreadable event may be them: the one whose EventId could be read, or every missing one when
 * an unreadable event had no readable EventId.
 */
export function carryOverUnreadable(
  previous: ScheduledEventsDocument | null,
  read: LenientRead,
): ScheduledEventsDocument | null {
  const doc = read.document;
  if (!doc || !previous) return doc;
  const dropped = read.problems.filter((p) => p.kind === "event");
  if (dropped.length === 0) return doc;
  const anyId = dropped.some((p) => p.eventId === undefined);
  const ids = new Set(dropped.flatMap((p) => (p.eventId ? [p.eventId.toLowerCase()] : [])));
  const present = new Set(doc.Events.map((e) => e.EventId.toLowerCase()));
  const kept = previous.Events.filter((e) => {
    const id = e.EventId.toLowerCase();
    return !present.has(id) && (anyId || ids.has(id));
  });
  return kept.length === 0
    ? doc
    : { ...doc, Events: [...doc.Events, ...kept].slice(0, MAX_EVENTS) };
}
