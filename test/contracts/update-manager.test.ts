import { readFileSync } from "node:fs";
import { join } from "node:path";
import { armToken, ManualClock } from "@quiesce/fabric-simulator";
import { parseEventGridDelivery } from "@quiesce/protocol/published";
import { useContractArm } from "@quiesce/testkit/arm";
import { call, request } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import { patchRunEvent } from "../../fabric-simulator/src/maintenance/patchRuns";
import { cancelMaintenanceRun } from "../../functions/src/arm/applyUpdates";
import type { HandlerDeps } from "../../functions/src/handlers/deps";
import { eventGridWebhookHandler } from "../../functions/src/handlers/eventGrid";

/**
 * Update Manager's pre- and post-maintenance events and the cancel of a run, from Microsoft's own
 * sample and REST example (fixtures/update-manager/SOURCES.md), held against the product's parser
 * and ARM call and against the fabric simulator's events and answers.
 */
const dir = join(__dirname, "fixtures", "update-manager");
/** The docs' code block misses the comma after `data`; that one comma is put back, nothing else. */
const sample = (name: string): unknown =>
  JSON.parse(
    readFileSync(join(dir, name), "utf8").replace(/\}\s*\n"eventType"/, '},\n"eventType"'),
  );
// biome-ignore lint/suspicious/noExplicitAny: the example is read field by field
const cancelExample: any = JSON.parse(
  readFileSync(join(dir, "ApplyUpdates_CreateOrUpdate_CancelMaintenance.json"), "utf8"),
);

const RUN =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/testrg/providers/Microsoft.Maintenance/maintenanceConfigurations/contosomaintenanceconfiguration/providers/microsoft.maintenance/applyupdates/20230509150000";

function runsOf(body: unknown) {
  const d = parseEventGridDelivery(body);
  if (!d.ok || d.value.kind !== "events") throw new Error(JSON.stringify(d));
  expect(d.value.rejected).toEqual([]);
  return d.value.patchRuns ?? [];
}

describe("Microsoft's pre- and post-maintenance event samples", () => {
  it("parse into one run with its window, cut-off and subscriptions", () => {
    const [pre] = runsOf(sample("PreMaintenanceEvent.event-grid-schema.sample.txt"));
    expect(pre).toMatchObject({
      kind: "pre",
      correlationId: RUN,
      startAt: Date.parse("2023-05-09T15:00:00Z"),
      endAt: Date.parse("2023-05-09T18:55:00Z"),
      cancelCutoffAt: Date.parse("2023-05-09T14:59:00Z"),
      subscriptionIds: ["subscription guid 1", "subscription guid 2"],
    });
    const [post] = runsOf(sample("PostMaintenanceEvent.event-grid-schema.sample.txt"));
    expect(post).toMatchObject({
      kind: "post",
      correlationId: RUN,
      status: "Succeeded",
      cancelCutoffAt: null,
    });
  });

  it("read the same with the keys in PascalCase, as learn.microsoft.com writes them", () => {
    // biome-ignore lint/suspicious/noExplicitAny: rewriting the sample's keys
    const body: any = sample("PreMaintenanceEvent.event-grid-schema.sample.txt");
    const data = body[0].data;
    body[0].data = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k[0]?.toUpperCase() + k.slice(1), v]),
    );
    expect(runsOf(body)).toEqual(
      runsOf(sample("PreMaintenanceEvent.event-grid-schema.sample.txt")),
    );
  });

  it("refuses a pre-event without its cut-off and a run id that is no applyUpdates id, and keeps the rest", () => {
    // biome-ignore lint/suspicious/noExplicitAny: breaking the sample on purpose
    const body: any = sample("PreMaintenanceEvent.event-grid-schema.sample.txt");
    const broken = structuredClone(body[0]);
    delete broken.data.cancellationCutOffDateTime;
    const wrongId = structuredClone(body[0]);
    wrongId.data.correlationId = "/subscriptions/x/resourceGroups/y";
    const d = parseEventGridDelivery([broken, wrongId, body[0]]);
    if (!d.ok || d.value.kind !== "events") throw new Error("not events");
    expect(d.value.rejected.map((r) => r.index)).toEqual([0, 1]);
    expect(d.value.patchRuns).toHaveLength(1);
  });

  it("the simulator's events parse to the same fields as the sample's", () => {
    const run = {
      correlationId: RUN,
      configurationId: RUN.replace(/\/providers\/microsoft\.maintenance\/applyupdates\/.*$/, ""),
      startMs: Date.parse("2023-05-09T15:00:00Z"),
      endMs: Date.parse("2023-05-09T18:55:00Z"),
      cutOffMs: Date.parse("2023-05-09T14:59:00Z"),
      status: "Scheduled" as const,
    };
    const [pre] = runsOf([
      patchRunEvent(run, "pre", "subscription guid 1", Date.parse("2023-05-09T14:25:00Z")),
    ]);
    const [fromSample] = runsOf(sample("PreMaintenanceEvent.event-grid-schema.sample.txt"));
    expect({ ...pre, deliveryId: "", subscriptionIds: [] }).toEqual({
      ...fromSample,
      deliveryId: "",
      subscriptionIds: [],
    });
    const [post] = runsOf([patchRunEvent({ ...run, status: "Succeeded" }, "post", "s", 0)]);
    expect(post).toMatchObject({ kind: "post", status: "Succeeded", cancelCutoffAt: null });
  });
});

describe("the webhook with the sample's pre-event", () => {
  const KEY = "contract-key-0123456789";
  const webhook = (failed: number) =>
    eventGridWebhookHandler(
      {
        options: { controlPlaneEvents: { enabled: true, eventGridKey: KEY } },
        guestPatching: { intake: async () => ({ applied: 1, unchanged: 0, cancelled: 0, failed }) },
      } as unknown as HandlerDeps,
      async () => ({ applied: 0, unchanged: 0, unclaimed: 0, skipped: 0, clusters: [] }),
    );
  const post = (failed: number) =>
    call(
      webhook(failed),
      request("POST", `maintenance/eventgrid?code=${KEY}`, {
        body: sample("PreMaintenanceEvent.event-grid-schema.sample.txt"),
      }),
    );

  it("is answered 200 with the run's summary", async () => {
    const res = await post(0);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ patchRuns: { applied: 1 }, ignored: 0, rejected: [] });
  });

  it("is answered 503 when the cancel it asked for did not land, so that Event Grid delivers it again", async () => {
    expect((await post(1)).status).toBe(503);
  });
});

describe("the cancel of a run (ApplyUpdates_CreateOrUpdateOrCancel)", () => {
  const clock = new ManualClock();
  const c = useContractArm({ clock });

  async function startRun(
    configuration: string,
  ): Promise<{ correlationId: string; cutOffMs: number }> {
    const res = await fetch(`${c.sim.url}/control/arm/patchRuns`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ configuration, startInSeconds: 1800 }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { correlationId: string; cutOffMs: number };
  }

  it("sends the example's body and reads the simulator's answer as the example's (status Cancelled)", async () => {
    expect(cancelExample.parameters.applyUpdate).toEqual({ properties: { status: "Cancel" } });
    const run = await startRun("patch-web");
    const r = await cancelMaintenanceRun(c.arm, run.correlationId);
    expect(r).toMatchObject({ ok: true, value: { status: 200, runStatus: "Cancelled" } });
    const logged = (await (await fetch(`${c.sim.url}/control/arm/requests`)).json()) as Array<{
      method: string;
      path: string;
    }>;
    expect(logged.at(-1)).toMatchObject({ method: "PUT" });
    const example = cancelExample.responses["200"].body;
    const answered = await fetch(`${c.sim.armUrl}${run.correlationId}?api-version=2025-11-01`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${await armToken(c.sim.identity)}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(cancelExample.parameters.applyUpdate),
    });
    const body = (await answered.json()) as typeof example;
    expect(Object.keys(body).sort()).toEqual(Object.keys(example).sort());
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(example.properties).sort());
    expect(body.properties.status).toBe(example.properties.status);
  });

  it("is refused once the cut-off has passed, and for a run that does not exist", async () => {
    const run = await startRun("patch-late");
    clock.advance(1800_000);
    const late = await cancelMaintenanceRun(c.arm, run.correlationId);
    expect(late).toMatchObject({ ok: false, error: { status: 400 } });
    const missing = await cancelMaintenanceRun(
      c.arm,
      run.correlationId.replace(/\d+$/, "20000101000000"),
    );
    expect(missing).toMatchObject({ ok: false, error: { status: 404 } });
  });
});
