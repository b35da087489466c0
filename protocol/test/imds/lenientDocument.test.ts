import {
  carryOverUnreadable,
  type ImdsProblem,
  notBeforeMs,
  parseScheduledEventsLeniently,
  readNotBefore,
  ScheduledEventsDocument,
} from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import seedStream from "../../../test/fixtures/seed-freeze-stream.json";

/**
 * Table tests of the relay's per-event reading of the Scheduled Events document: the documents of
 * the facts page and the seeds, the 2017 preview form, and the variants seen in public captures,
 * samples and other handlers (numbers served as strings, other spellings of known values, other
 * time layouts), each with what must survive and what must be reported.
 */

const GOOD = {
  EventId: "602d9444-d2cd-49c7-8624-8643e7171297",
  EventType: "Reboot",
  ResourceType: "VirtualMachine",
  Resources: ["web-0", "web-1"],
  EventStatus: "Scheduled",
  NotBefore: "Mon, 11 Apr 2022 22:26:58 GMT",
  Description: "Host server is undergoing maintenance.",
  EventSource: "Platform",
  DurationInSeconds: 7,
};
const NB = Date.parse("2022-04-11T22:26:58Z");
const doc = (...events: unknown[]) => ({ DocumentIncarnation: 3, Events: events });
const ev = (patch: Record<string, unknown>) => ({ ...GOOD, ...patch });
const without = (field: keyof typeof GOOD) => {
  const { [field]: _, ...rest } = GOOD;
  return rest;
};
const kinds = (ps: ImdsProblem[]) => ps.map((p) => `${p.kind}:${p.field ?? ""}`);

describe("parseScheduledEventsLeniently: documents as served", () => {
  it("reads every document of the seeds' Freeze stream exactly as the strict schema does", () => {
    for (const d of seedStream) {
      const r = parseScheduledEventsLeniently(d);
      expect(r.problems).toEqual([]);
      expect(r.document).toEqual(ScheduledEventsDocument.parse(d));
    }
  });

  it.each([
    ["api-version 2020-07-01, every field", doc(GOOD)],
    [
      "2017-03-01 preview: ISO 8601 NotBefore, no Description/EventSource/DurationInSeconds",
      doc({ ...without("Description"), NotBefore: "2016-09-19T18:29:47Z" }),
    ],
    ["Started: NotBefore empty", doc(ev({ EventStatus: "Started", NotBefore: "" }))],
    ["no events", { DocumentIncarnation: 0, Events: [] }],
    [
      "upper-case EventId (real captures)",
      doc(ev({ EventId: "C7061BAC-AFDC-4513-B24B-AA5F13A16123" })),
    ],
    ["null Description and EventSource", doc(ev({ Description: null, EventSource: null }))],
    ["unknown EventType and extra fields", doc(ev({ EventType: "LiveResize", Extra: { a: 1 } }))],
    ["DurationInSeconds -1 (unknown)", doc(ev({ DurationInSeconds: -1 }))],
  ])("%s: kept as is, no problem", (_name, input) => {
    const r = parseScheduledEventsLeniently(input);
    expect(r.problems).toEqual([]);
    expect(r.document).toEqual(ScheduledEventsDocument.parse(input));
  });
});

describe("parseScheduledEventsLeniently: coercions of what is unambiguous", () => {
  it.each([
    [
      "DocumentIncarnation as a string (the preview docs' own example)",
      { DocumentIncarnation: "5", Events: [GOOD] },
      (d: ScheduledEventsDocument) => expect(d.DocumentIncarnation).toBe(5),
    ],
    [
      "DurationInSeconds as a string (the docs' sample runs int() on it)",
      doc(ev({ DurationInSeconds: "5" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0]?.DurationInSeconds).toBe(5),
    ],
    [
      "EventStatus in lower case",
      doc(ev({ EventStatus: "scheduled" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0]?.EventStatus).toBe("Scheduled"),
    ],
    [
      "EventStatus upper case with blanks",
      doc(ev({ EventStatus: " STARTED ", NotBefore: "" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0]?.EventStatus).toBe("Started"),
    ],
    [
      "EventType in lower case",
      doc(ev({ EventType: "freeze" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0]?.EventType).toBe("Freeze"),
    ],
    [
      "EventSource in lower case",
      doc(ev({ EventSource: "user" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0]?.EventSource).toBe("User"),
    ],
    [
      "NotBefore with a numeric offset",
      doc(ev({ NotBefore: "Mon, 11 Apr 2022 22:26:58 +0000" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0] && notBeforeMs(d.Events[0])).toBe(NB),
    ],
    [
      "NotBefore in .NET round-trip form",
      doc(ev({ NotBefore: "2022-04-11T22:26:58.0000000Z" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0] && notBeforeMs(d.Events[0])).toBe(NB),
    ],
    [
      "NotBefore with lower-case day and month names",
      doc(ev({ NotBefore: "mon, 11 apr 2022 22:26:58 GMT" })),
      (d: ScheduledEventsDocument) => expect(d.Events[0] && notBeforeMs(d.Events[0])).toBe(NB),
    ],
    [
      "NotBefore absent (not yet known)",
      doc(without("NotBefore")),
      (d: ScheduledEventsDocument) => expect(d.Events[0]?.NotBefore).toBe(""),
    ],
  ])("%s", (_name, input, check) => {
    const r = parseScheduledEventsLeniently(input);
    expect(r.problems).toEqual([]);
    expect(r.document).not.toBeNull();
    check(r.document as ScheduledEventsDocument);
    // What the relay reports always passes the coordinator's strict boundary.
    expect(ScheduledEventsDocument.safeParse(r.document).success).toBe(true);
  });
});

describe("parseScheduledEventsLeniently: one odd event or field never hides the others", () => {
  const other = ev({ EventId: "other", Resources: ["web-2"] });

  it.each([
    [
      "NotBefore without a time zone (PowerShell's rendering)",
      ev({ NotBefore: "4/11/2022 10:26:58 PM" }),
      "NotBefore",
    ],
    ["NotBefore as epoch seconds", ev({ NotBefore: 1649716018 }), "NotBefore"],
    ["NotBefore nonsense", ev({ NotBefore: "soon" }), "NotBefore"],
    ["DurationInSeconds fractional", ev({ DurationInSeconds: 5.5 }), "DurationInSeconds"],
    ["DurationInSeconds as words", ev({ DurationInSeconds: "five" }), "DurationInSeconds"],
    ["Description an object", ev({ Description: { text: "x" } }), "Description"],
    ["EventSource a number", ev({ EventSource: 1 }), "EventSource"],
    ["EventType missing", without("EventType"), "EventType"],
    ["ResourceType a list", ev({ ResourceType: ["VirtualMachine"] }), "ResourceType"],
  ])(
    "%s: the event is kept without the field, a field problem is reported",
    (_name, odd, field) => {
      const r = parseScheduledEventsLeniently(doc(odd, other));
      expect(r.document?.Events.map((e) => e.EventId)).toEqual([GOOD.EventId, "other"]);
      expect(r.document?.Events[0]?.Resources).toEqual(GOOD.Resources);
      expect(r.document?.Events[0]?.EventStatus).toBe("Scheduled");
      expect(kinds(r.problems)).toEqual([`field:${field}`]);
      expect(r.problems[0]?.eventId).toBe(GOOD.EventId);
      expect(ScheduledEventsDocument.safeParse(r.document).success).toBe(true);
    },
  );

  it("keeps a Scheduled event whose NotBefore cannot be read with no NotBefore (due now), so the relay drains it at once", () => {
    const r = parseScheduledEventsLeniently(doc(ev({ NotBefore: "tomorrow-ish" })));
    const e = r.document?.Events[0];
    expect(e?.NotBefore).toBe("");
    expect(e && notBeforeMs(e)).toBeNull();
    expect(r.problems[0]?.detail).toMatch(/drained at once and treated as due now/);
  });

  it("keeps an unreadable EventType as Unknown, which no auto-approve rule names", () => {
    const r = parseScheduledEventsLeniently(doc(ev({ EventType: 42 })));
    expect(r.document?.Events[0]?.EventType).toBe("Unknown");
  });

  it.each([
    ["EventId missing", without("EventId"), "event:Events[0].EventId", undefined],
    ["EventId a number", ev({ EventId: 7 }), "event:Events[0].EventId", undefined],
    ["EventStatus unknown", ev({ EventStatus: "Completed" }), "event:EventStatus", GOOD.EventId],
    ["Resources a single string", ev({ Resources: "web-0" }), "event:Resources", GOOD.EventId],
    ["Resources missing", without("Resources"), "event:Resources", GOOD.EventId],
    ["Resources with a number", ev({ Resources: ["web-0", 1] }), "event:Resources", GOOD.EventId],
    ["the event not an object", "Reboot", "event:Events[0]", undefined],
  ])("%s: that event is dropped and reported, the others kept", (_name, odd, kind, eventId) => {
    const r = parseScheduledEventsLeniently(doc(odd, other));
    expect(r.document?.Events.map((e) => e.EventId)).toEqual(["other"]);
    expect(kinds(r.problems)).toEqual([kind]);
    expect(r.problems[0]?.eventId).toBe(eventId);
  });

  it.each([
    ["not an object", [GOOD]],
    ["null", null],
    ["DocumentIncarnation missing", { Events: [GOOD] }],
    ["DocumentIncarnation negative", { DocumentIncarnation: -1, Events: [GOOD] }],
    ["DocumentIncarnation fractional", { DocumentIncarnation: 1.5, Events: [GOOD] }],
    ["Events missing", { DocumentIncarnation: 1 }],
    ["Events an object", { DocumentIncarnation: 1, Events: { 0: GOOD } }],
  ])("a document with %s cannot be read: one document problem, no document", (_name, input) => {
    const r = parseScheduledEventsLeniently(input);
    expect(r.document).toBeNull();
    expect(kinds(r.problems)).toEqual(["document:"]);
  });

  it("reads the first 100 of more events and says the rest were not read", () => {
    const many = Array.from({ length: 101 }, (_, i) => ev({ EventId: `e${i}` }));
    const r = parseScheduledEventsLeniently(doc(...many));
    expect(r.document?.Events).toHaveLength(100);
    expect(kinds(r.problems)).toEqual(["document:"]);
  });

  it("bounds what it reports, however odd the document", () => {
    const odd = Array.from({ length: 60 }, () => ev({ DurationInSeconds: "x" }));
    expect(parseScheduledEventsLeniently(doc(...odd)).problems).toHaveLength(20);
  });
});

describe("readNotBefore", () => {
  it.each([
    ["Mon, 11 Apr 2022 22:26:58 GMT", "Mon, 11 Apr 2022 22:26:58 GMT"],
    ["2022-04-11T22:26:58Z", "2022-04-11T22:26:58Z"],
    ["Mon, 11 Apr 2022 22:26:58 UTC", "Mon, 11 Apr 2022 22:26:58 UTC"],
    ["11 Apr 2022 22:26:58 GMT", "Mon, 11 Apr 2022 22:26:58 GMT"],
    ["", ""],
    [null, ""],
    [undefined, ""],
    ["2022-04-11 22:26:58", undefined],
    [0, undefined],
  ])("%j → %j", (input, expected) => {
    expect(readNotBefore(input)).toBe(expected);
  });
});

describe("carryOverUnreadable: an unreadable event is not one that left", () => {
  const previous = ScheduledEventsDocument.parse(doc(GOOD, ev({ EventId: "B" })));
  const read = (...events: unknown[]) => parseScheduledEventsLeniently(doc(...events));

  it("keeps the last readable version of the event whose EventId could still be read", () => {
    const out = carryOverUnreadable(previous, read(ev({ EventStatus: 9 })));
    expect(out?.Events.map((e) => e.EventId)).toEqual([GOOD.EventId]);
    expect(out?.DocumentIncarnation).toBe(3);
  });

  it("keeps every missing event when an unreadable one has no readable EventId", () => {
    const out = carryOverUnreadable(previous, read(without("EventId")));
    expect(out?.Events.map((e) => e.EventId)).toEqual([GOOD.EventId, "B"]);
  });

  it("lets events leave when everything in the document was read", () => {
    expect(carryOverUnreadable(previous, read())?.Events).toEqual([]);
    expect(
      carryOverUnreadable(previous, read(ev({ DurationInSeconds: "x" })))?.Events,
    ).toHaveLength(1);
  });
});
