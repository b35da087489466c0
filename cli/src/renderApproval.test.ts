import { StatusPage } from "@quiesce/protocol/status";
import { describe, expect, it } from "vitest";
import { renderStatus } from "./render";

describe("control-plane approval per group in text", () => {
  const page = (controlPlaneApproval?: unknown) =>
    StatusPage.parse({
      now: "2026-11-27T12:00:00.000Z",
      clusters: [
        {
          cluster: "web",
          memberCount: 4,
          liveMembers: 0,
          activeEventCount: 0,
          groups: [
            {
              kind: "zone",
              name: "1",
              memberCount: 4,
              liveMembers: 0,
              ...(controlPlaneApproval ? { controlPlaneApproval } : {}),
            },
          ],
        },
      ],
      events: [],
      continuation: null,
    });

  it("says where it is not available, since when, how it was learnt, and that the group relies on it", () => {
    const text = renderStatus(
      page({
        availability: "notAvailable",
        region: "westeurope",
        since: "2026-11-27T06:00:00.000Z",
        how: "probe",
        detail: "405 NotImplemented",
        relies: true,
      }),
    );
    expect(text).toContain(
      "zone 1: 0/4 live; control-plane approval NOT available in westeurope since 2026-11-27T06:00:00.000Z (probe: 405 NotImplemented), relied on !",
    );
  });

  it("says unknown before anything was learnt, and nothing from a coordinator without the control plane", () => {
    const unknown = {
      availability: "unknown",
      region: null,
      since: null,
      how: null,
      detail: null,
      relies: false,
    };
    expect(renderStatus(page(unknown))).toContain(
      "zone 1: 0/4 live; control-plane approval unknown",
    );
    expect(renderStatus(page())).toContain("zone 1: 0/4 live\n");
  });
});
