import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { RelayState } from "../src/decisions/state";
import { type Harness, scheduled, started, useHarness } from "./support/harness";
import { waitFor } from "./support/wait";

/**
 * The relay's hooks over an event's life, against IMDS and coordinator stand-ins: a drain once per
 * event that names this VM, a recover once it left, and both kept across restarts.
 */
describe("relay against IMDS and coordinator stand-ins", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });

  it("drains once per event and only for events that name this VM", async () => {
    await h.start();
    h.imds.setEvents([
      scheduled("E-OURS", ["vm-1", "VM-0"]),
      scheduled("E-NEIGHBOUR", ["vm-1", "vm-2"]),
    ]);
    await waitFor("the drain hook", async () => (await h.hooks()).length > 0);
    await h.morePolls(4);
    expect(await h.hooks()).toEqual(["drain E-OURS 1"]);
    const report = await waitFor("a report with the drain succeeded", () => {
      const r = h.coordinator.last();
      return r?.hooks[0]?.drain?.status === "succeeded" ? r : undefined;
    });
    expect(report.hooks.map((x) => x.eventId)).toEqual(["E-OURS"]);
    expect(report.document?.Events).toHaveLength(2);
    expect(report.vm.name).toBe("vm-0");
  });

  it("recovers after the event completed (Scheduled, Started, gone)", async () => {
    await h.start();
    const e = scheduled("E1", ["vm-0"]);
    h.imds.setEvents([e]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.setEvents([started(e)]);
    await h.morePolls(2);
    expect(await h.hooks()).toEqual(["drain E1 1"]);
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    await waitFor(
      "a report with the recover succeeded",
      () => h.coordinator.last()?.hooks[0]?.recover?.status === "succeeded",
    );
  });

  it("recovers after the event was cancelled (left the document while Scheduled)", async () => {
    await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain E1 1"));
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
    await h.morePolls(2);
    expect(await h.hooks()).toEqual(["drain E1 1", "recover E1 1"]);
  });

  it("drains at once for an event first seen as Started, and recovers when it leaves", async () => {
    await h.start();
    h.imds.setEvents([started(scheduled("HW-FAIL", ["vm-0"]))]);
    await waitFor("drain", async () => (await h.hooks()).includes("drain HW-FAIL 1"));
    h.imds.setEvents([]);
    await waitFor("recover", async () => (await h.hooks()).includes("recover HW-FAIL 1"));
  });

  it("keeps polling IMDS and reporting while a drain hook is still running", async () => {
    const relay = await h.start({ QUIESCE_DRAIN_COMMAND: "sleep 30" });
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor(
      "the drain to start",
      () => relay.state().state.events.e1?.drain?.status === "running",
    );
    await waitFor(
      "a report showing the drain running",
      () => h.coordinator.last()?.hooks[0]?.drain?.status === "running",
    );
    await h.morePolls(3);
    h.imds.setEvents([]);
    await waitFor(
      "the next document, read while the drain runs",
      () => relay.state().document?.Events.length === 0,
    );
    expect(relay.state().state.events.e1?.drain?.status).toBe("running");
  });

  it("re-runs a drain interrupted by a restart, and never repeats a finished one", async () => {
    // The first attempt hangs until the relay is stopped under it.
    const drain = `echo "start $QUIESCE_HOOK_ATTEMPT" >> ${h.dir}/hooks.log; [ "$QUIESCE_HOOK_ATTEMPT" = 1 ] && sleep 30; echo "done $QUIESCE_HOOK_ATTEMPT" >> ${h.dir}/hooks.log`;
    const first = await h.start({ QUIESCE_DRAIN_COMMAND: drain });
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("the first drain attempt", async () => (await h.hooks()).includes("start 1"));
    await first.stop();
    const saved = RelayState.parse(JSON.parse(await readFile(h.stateFile, "utf8")));
    expect(saved.events.e1?.drain?.status).toBe("interrupted");

    const second = await h.start({ QUIESCE_DRAIN_COMMAND: drain });
    await waitFor(
      "the drain to run again",
      () => second.state().state.events.e1?.drain?.status === "succeeded",
    );
    expect(await h.hooks()).toEqual(["start 1", "start 2", "done 2"]);
    await second.stop();

    const third = await h.start({ QUIESCE_DRAIN_COMMAND: drain });
    await waitFor("the third relay to read the document", () => third.state().document !== null);
    await h.morePolls(3);
    expect(await h.hooks()).toEqual(["start 1", "start 2", "done 2"]);
    expect(third.state().state.events.e1?.drain?.attempt).toBe(2);
  });

  it("runs a recover still owed after a restart, even if the event left while the relay was down", async () => {
    const first = await h.start();
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("drain", () => first.state().state.events.e1?.drain?.status === "succeeded");
    await first.stop();
    h.imds.setEvents([]);
    await h.start();
    await waitFor("recover", async () => (await h.hooks()).includes("recover E1 1"));
  });
});
