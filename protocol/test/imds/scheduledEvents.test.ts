import {
  eventKey,
  namesVm,
  notBeforeMs,
  parseNotBefore,
  ScheduledEventsDocument,
  StartRequestsBody,
  sameEventId,
} from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import seedStream from "../../../test/fixtures/seed-freeze-stream.json";

describe("ScheduledEventsDocument", () => {
  it("parses every document of the seeds' Freeze stream (api-version 2020-07-01)", () => {
    for (const doc of seedStream)
      expect(ScheduledEventsDocument.parse(doc).DocumentIncarnation).toBe(doc.DocumentIncarnation);
  });

  it("parses the 2017 preview form: no Description/EventSource/DurationInSeconds, ISO 8601 NotBefore", () => {
    const doc = ScheduledEventsDocument.parse({
      DocumentIncarnation: 5,
      Events: [
        {
          EventId: "602d9444-d2cd-49c7-8624-8643e7171297",
          EventType: "Reboot",
          ResourceType: "VirtualMachine",
          Resources: ["FrontEnd_IN_0", "BackEnd_IN_0"],
          EventStatus: "Scheduled",
          NotBefore: "2016-09-19T18:29:47Z",
        },
      ],
    });
    const ev = doc.Events[0];
    expect(ev && notBeforeMs(ev)).toBe(Date.parse("2016-09-19T18:29:47Z"));
  });

  it("keeps an unknown EventType and unknown extra fields instead of rejecting the document", () => {
    const doc = ScheduledEventsDocument.parse({
      DocumentIncarnation: 9,
      SomethingNew: true,
      Events: [
        {
          EventId: "x",
          EventType: "LiveResize",
          Resources: ["a"],
          EventStatus: "Scheduled",
          Extra: 1,
        },
      ],
    });
    expect(doc.Events[0]?.EventType).toBe("LiveResize");
    expect((doc as Record<string, unknown>).SomethingNew).toBe(true);
  });

  it("treats NotBefore as RFC 1123, ISO 8601, empty or absent, and rejects anything else naming the field", () => {
    expect(parseNotBefore("Mon, 11 Apr 2022 22:26:58 GMT")).toBe(
      Date.parse("2022-04-11T22:26:58Z"),
    );
    expect(parseNotBefore("2022-04-11T22:26:58Z")).toBe(Date.parse("2022-04-11T22:26:58Z"));
    expect(parseNotBefore("")).toBeNull();
    expect(parseNotBefore(undefined)).toBeNull();
    expect(parseNotBefore("tomorrow")).toBeUndefined();
    const bad = ScheduledEventsDocument.safeParse({
      DocumentIncarnation: 1,
      Events: [
        {
          EventId: "x",
          EventType: "Freeze",
          Resources: ["a"],
          EventStatus: "Scheduled",
          NotBefore: "soon",
        },
      ],
    });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/NotBefore/);
  });

  it("rejects an unknown EventStatus and a negative incarnation", () => {
    expect(ScheduledEventsDocument.safeParse({ DocumentIncarnation: -1, Events: [] }).success).toBe(
      false,
    );
    expect(
      ScheduledEventsDocument.safeParse({
        DocumentIncarnation: 1,
        Events: [{ EventId: "x", EventType: "Freeze", Resources: [], EventStatus: "Completed" }],
      }).success,
    ).toBe(false);
  });

  it("compares EventIds and VM names without regard to case", () => {
    expect(
      sameEventId("C7061BAC-AFDC-4513-B24B-AA5F13A16123", "c7061bac-afdc-4513-b24b-aa5f13a16123"),
    ).toBe(true);
    expect(eventKey("ABC")).toBe("abc");
    expect(namesVm({ Resources: ["WestNO_0"] }, "westno_0")).toBe(true);
    expect(namesVm({ Resources: ["WestNO_0"] }, "WestNO_1")).toBe(false);
  });
});

describe("StartRequestsBody", () => {
  it("accepts today's body and the 2017 preview body with DocumentIncarnation as a string", () => {
    expect(
      StartRequestsBody.safeParse({ StartRequests: [{ EventId: "a" }, { EventId: "b" }] }).success,
    ).toBe(true);
    expect(
      StartRequestsBody.safeParse({
        DocumentIncarnation: "5",
        StartRequests: [{ EventId: "f020ba2e" }],
      }).success,
    ).toBe(true);
  });

  it("rejects an empty list and entries without EventId", () => {
    expect(StartRequestsBody.safeParse({ StartRequests: [] }).success).toBe(false);
    expect(StartRequestsBody.safeParse({ StartRequests: [{ Id: "a" }] }).success).toBe(false);
  });
});
