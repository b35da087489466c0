import { describe, expect, it } from "vitest";
import { approvalNote } from "./approval";

const group = (controlPlaneApproval?: unknown) =>
  ({ kind: "zone", name: "1", memberCount: 4, liveMembers: 0, controlPlaneApproval }) as never;

describe("a group's control-plane approval on the page", () => {
  it("warns where the group relies on it and Azure does not offer it, with since and how", () => {
    const a = {
      availability: "notAvailable",
      region: "westeurope",
      since: "2026-11-27T06:00:00.000Z",
      how: "probe",
      detail: "405 NotImplemented",
      relies: true,
    };
    expect(approvalNote([group(a)], "zone", "1")).toEqual({
      text: "control-plane approval: not available in westeurope since 2026-11-27T06:00:00.000Z (probe, 405 NotImplemented) · relied on",
      warn: true,
    });
  });

  it("does not warn where it is available, and says nothing without the control plane", () => {
    const a = {
      availability: "available",
      region: "westeurope",
      since: "2026-11-27T06:00:00.000Z",
      how: "acknowledge",
      detail: "approved",
      relies: true,
    };
    expect(approvalNote([group(a)], "zone", "1")?.warn).toBe(false);
    expect(approvalNote([group()], "zone", "1")).toBeNull();
  });
});
