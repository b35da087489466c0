import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getScheduledEvents } from "@quiesce/fabric-simulator";
import {
  isAdvisory,
  KNOWN_EVENT_TYPES,
  REBALANCE_API_VERSION,
  SCHEDULED_EVENTS_API_VERSION,
} from "@quiesce/protocol/imds";
import { useContractSim } from "@quiesce/testkit/arm";
import { describe, expect, it } from "vitest";

/**
 * Spot rebalance recommendations against the one public artifact that names their api-version:
 * OpenShift's Azure Spot end-to-end mock (fixtures/imds-spot/SOURCES.md), held against the
 * protocol's constants and the fabric simulator's IMDS. What no source shows (the event's other
 * fields, its lifetime, the answer to a StartRequests) is the simulator's own rule, listed there.
 */

const mock = readFileSync(
  join(__dirname, "fixtures", "imds-spot", "openshift.metadata_mock.excerpt.go.txt"),
  "utf8",
);
const goConst = (name: string) => new RegExp(`^\\s*${name}\\s*=\\s*"([^"]+)"`, "m").exec(mock)?.[1];

const apiVersion = goConst("azureTerminationAPIVersion");
const preempt = goConst("azurePreemptEventType");
const rebalance = goConst("azureSpotRebalanceRecommendation");

describe("OpenShift's Azure Spot mock", () => {
  it("names the api-version the protocol reads rebalance recommendations with, and the relay does not use by default", () => {
    expect(apiVersion).toBe(REBALANCE_API_VERSION);
    expect(mock).toContain('req.URL.Query().Get("api-version") != azureTerminationAPIVersion');
    expect(SCHEDULED_EVENTS_API_VERSION).not.toBe(apiVersion);
  });

  it("spells both event types as the protocol knows them; only the rebalance recommendation is advisory", () => {
    expect([preempt, rebalance]).toEqual(["Preempt", "SpotRebalanceRecommendation"]);
    expect(KNOWN_EVENT_TYPES).toEqual(expect.arrayContaining([preempt, rebalance]));
    expect(isAdvisory({ EventType: rebalance as string })).toBe(true);
    expect(isAdvisory({ EventType: preempt as string })).toBe(false);
  });
});

describe("the fabric simulator's IMDS against the mock", () => {
  const ctx = useContractSim();

  it("serves both event types at the mock's api-version with the mock's Metadata header", async () => {
    expect(mock).toContain('req.Header.Get("Metadata") != "true"');
    const vm = ctx.sim.vmNames()[0] as string;
    const types = async () =>
      (await getScheduledEvents(ctx.sim.imdsUrl(vm), { apiVersion })).body?.Events.map(
        (e) => e.EventType,
      );
    ctx.sim.schedule({ eventType: rebalance as string, resources: [vm] });
    expect(await types()).toEqual([rebalance]);
    // The mock alternates the two; in the simulator the Preempt supersedes the recommendation.
    ctx.sim.schedule({ eventType: preempt as string, resources: [vm] });
    expect(await types()).toEqual([preempt]);
  });
});
