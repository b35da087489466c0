import { type LocalCluster, startLocalCluster } from "@quiesce/demo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/wait";

describe("smoke", () => {
  let c: LocalCluster;
  beforeAll(async () => {
    c = await startLocalCluster({
      relaySettings: { QUIESCE_DRAIN_COMMAND: "sleep 0.3", QUIESCE_RECOVER_COMMAND: "true" },
      sweepIntervalMs: 500,
    });
  }, 60_000);
  afterAll(async () => {
    await c?.stop();
  });

  it("runs a freeze end to end", async () => {
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1"],
      noticeSeconds: 120,
      durationInSeconds: 2,
    });
    const done = await waitFor(
      async () => {
        const d = await c.status.event(ev.eventId, c.cluster).catch(() => null);
        return d?.phase === "Completed" ? d : null;
      },
      60_000,
      "event completed",
    );
    console.log(done.timeline.map((t) => `${t.at} ${t.reason}`).join("\n"));
    console.log(JSON.stringify(c.fabric.event(ev.eventId)?.approvals));
    expect(done.approval.rule).toBe("allDrained");
  }, 90_000);
});
