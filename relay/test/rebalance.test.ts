import { REBALANCE_API_VERSION } from "@quiesce/protocol/imds";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../src/cli";
import { parseRelaySettings } from "../src/config";
import { type Harness, hookLines, scheduled, useHarness } from "./support/harness";
import type { StandInEvent } from "./support/imdsStandIn";
import { waitFor } from "./support/wait";

/**
 * Spot rebalance recommendations in the whole relay against the IMDS stand-in (which, like Azure
 * and the fabric simulator, serves them only at api-version 2024-07-09): read only when the
 * cluster opts in, never approved whatever the coordinator says, handed to the hooks as advisory
 * under QUIESCE_REBALANCE_ACTION=hooks, reported but left alone under `none`.
 */

const rebalance = (id: string): StandInEvent => ({
  ...scheduled(id, ["vm-0"]),
  EventType: "SpotRebalanceRecommendation",
  Description: "",
});
/** A hook that logs "<hook> <EventId> <EventType> advisory=<QUIESCE_EVENT_ADVISORY>". */
const advisoryHook = (dir: string) =>
  `echo "$QUIESCE_HOOK $QUIESCE_EVENT_ID $QUIESCE_EVENT_TYPE advisory=$QUIESCE_EVENT_ADVISORY" >> ${dir}/hooks.log`;

describe("relay and Spot rebalance recommendations", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });
  const optIn = (extra: Record<string, unknown> = {}) =>
    h.start({
      QUIESCE_IMDS_API_VERSION: REBALANCE_API_VERSION,
      QUIESCE_DRAIN_COMMAND: advisoryHook(h.dir),
      QUIESCE_RECOVER_COMMAND: advisoryHook(h.dir),
      ...extra,
    });

  it("runs the drain hook told it is advisory, and the recover hook once it left the document", async () => {
    await optIn();
    h.imds.setEvents([rebalance("R1"), scheduled("E1", ["vm-0"])]);
    await waitFor("both drains", async () => (await hookLines(h.dir)).length === 2);
    expect((await hookLines(h.dir)).sort()).toEqual([
      "drain E1 Reboot advisory=false",
      "drain R1 SpotRebalanceRecommendation advisory=true",
    ]);
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("the recover", async () => (await hookLines(h.dir)).length === 3);
    expect((await hookLines(h.dir))[2]).toBe(
      "recover R1 SpotRebalanceRecommendation advisory=true",
    );
  });

  it("posts no StartRequests for it when a directive names it, and reports why", async () => {
    await optIn();
    h.imds.setEvents([rebalance("R1")]);
    await waitFor("the drain", async () => (await hookLines(h.dir)).length === 1);
    h.coordinator.once = [
      {
        kind: "approve",
        eventIds: ["R1"],
        leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    ];
    const report = await waitFor("the skipped approval", () =>
      h.coordinator.reports.find((r) => r.approvals.length > 0),
    );
    expect(report.approvals).toMatchObject([
      {
        eventId: "R1",
        outcome: "skipped",
        detail: "advisory: approving a SpotRebalanceRecommendation has no effect",
      },
    ]);
    await h.morePolls(3);
    expect(h.imds.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("under QUIESCE_REBALANCE_ACTION=none reports it and runs no hook for it", async () => {
    await optIn({ QUIESCE_REBALANCE_ACTION: "none" });
    h.imds.setEvents([rebalance("R1"), scheduled("E1", ["vm-0"])]);
    await waitFor("the other event's drain", async () => (await hookLines(h.dir)).length === 1);
    await waitFor("a report with both events", () =>
      h.coordinator.reports.some((r) => r.document?.Events.length === 2),
    );
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await h.morePolls(3);
    expect(await hookLines(h.dir)).toEqual(["drain E1 Reboot advisory=false"]);
  });

  it("at the default api-version (2020-07-01) never sees one: IMDS does not serve it there", async () => {
    await h.start();
    h.imds.setEvents([rebalance("R1"), scheduled("E1", ["vm-0"])]);
    await waitFor("the other event's drain", async () => (await h.hooks()).length === 1);
    await h.morePolls(3);
    expect(await h.hooks()).toEqual(["drain E1 1"]);
    expect(h.imds.eventRequests().map((r) => r.query.get("api-version"))).toContain("2020-07-01");
    expect(h.coordinator.last()?.document?.Events.map((e) => e.EventId)).toEqual(["E1"]);
  });
});

describe("quiesce-relay --check-config", () => {
  const check = (settings: Record<string, string>) => {
    const err: string[] = [];
    const code = checkConfig(
      parseRelaySettings({
        QUIESCE_COORDINATOR_URL: "http://127.0.0.1:7071",
        QUIESCE_CLUSTER: "spot",
        QUIESCE_AUTH_MODE: "sharedKey",
        QUIESCE_RELAY_KEY: "0123456789abcdef",
        ...settings,
      }),
      { PATH: "" },
      { out: () => {}, err: (t) => err.push(t) },
    );
    return { code, err: err.join("") };
  };

  it("says when the api-version carries rebalance recommendations, and what the relay does with them", () => {
    expect(check({ QUIESCE_IMDS_API_VERSION: REBALANCE_API_VERSION })).toEqual({
      code: 0,
      err: "quiesce-relay: note: QUIESCE_IMDS_API_VERSION=2024-07-09 carries Spot rebalance recommendations (SpotRebalanceRecommendation): advisory, never approved; QUIESCE_REBALANCE_ACTION=hooks: the drain hook runs for one, told it is advisory, and the recover hook when it leaves\n",
    });
    expect(
      check({ QUIESCE_IMDS_API_VERSION: REBALANCE_API_VERSION, QUIESCE_REBALANCE_ACTION: "none" })
        .err,
    ).toContain("QUIESCE_REBALANCE_ACTION=none: reported only, no hook runs");
    expect(check({}).err).toBe("");
  });
});
