import { bounded, startLagMonitor } from "@quiesce/testkit/lag";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock, ScaledClock } from "../engine/clock";
import { approve, getScheduledEvents } from "../imds/probe";
import { generateTopology } from "../topology/topologies";
import { type FabricSimulator, startFabricSimulator } from "./simulator";

let sim: FabricSimulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  deadlineMs = 5000,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("scaled clock", () => {
  it("moves simulated time timeScale times faster than real time", () => {
    let real = 1_000;
    const clock = new ScaledClock(60, 5_000_000, () => real);
    real += 1_500;
    expect(clock.now()).toBe(5_000_000 + 90_000);
    clock.advance(10_000);
    expect(clock.now()).toBe(5_000_000 + 100_000);
    expect(() => clock.advance(-1)).toThrow();
    expect(() => new ScaledClock(0)).toThrow();
  });

  it("a 15-minute notice passes in a fraction of a second at time scale 3600, and the event runs its course", async () => {
    sim = await startFabricSimulator({ timeScale: 3600 });
    const s = sim;
    const e = s.schedule({ eventType: "Reboot", group: "avset-web" });
    const lag = startLagMonitor();
    const t0 = Date.now();
    await until("the event to start at NotBefore", () => s.event(e.eventId)?.startedAt);
    const t1 = Date.now();
    lag.stop();
    // Plus the scheduling delay measured meanwhile: the scaled clock runs on this process's timers.
    const b = bounded(t1 - t0, 2000, lag.between(t0, t1));
    expect(b.ms, `NotBefore reached in ${b.text}`).toBeLessThan(b.allowedMs);
    await until("the event to leave the document", async () => {
      const d = await getScheduledEvents(s.imdsUrl("web-0"));
      return d.body?.Events.length === 0 ? d : undefined;
    });
    const ev = s.event(e.eventId);
    expect(ev?.startCause).toBe("notBefore");
    expect(ev?.startedAt?.simMs).toBe(ev?.notBeforeMs);
  });
});

describe("scale", () => {
  it("serves 1,000 VMs from one server with one incarnation per group", async () => {
    sim = await startFabricSimulator({ topology: generateTopology(1000), timeScale: 1 });
    const s = sim;
    const names = s.vmNames();
    expect(names).toHaveLength(1000);
    const e = s.schedule({ eventType: "Freeze", group: "avset-050" });
    const answers = await Promise.all(
      names.slice(490, 530).map((vm) => getScheduledEvents(s.imdsUrl(vm))),
    );
    const withEvent = answers.filter((a) => a.body?.Events.some((x) => x.EventId === e.eventId));
    expect(withEvent).toHaveLength(10);
    expect(new Set(withEvent.map((a) => a.etag)).size).toBe(1);
  });
});

describe("fabric options", () => {
  it("requireAllApprovals and minStartedSeconds set the defaults of every event; undefined keeps Azure's", async () => {
    const clock = new ManualClock();
    sim = await startFabricSimulator({
      clock,
      requireAllApprovals: true,
      minStartedSeconds: 120,
      deleteOnEviction: undefined,
    });
    const s = sim;
    const e = s.schedule({
      eventType: "Freeze",
      group: "avset-web",
      resources: ["web-0", "web-1"],
    });
    expect(e).toMatchObject({ requireAllApprovals: true, startedForMs: 120_000 });
    await approve(s.imdsUrl("web-0"), e.eventId);
    expect(s.event(e.eventId)?.phase).toBe("Scheduled");
    await approve(s.imdsUrl("web-1"), e.eventId);
    expect(s.event(e.eventId)?.phase).toBe("Started");
    clock.advance(119_000);
    expect(s.event(e.eventId)?.phase).toBe("Started");
    clock.advance(1000);
    expect(s.event(e.eventId)?.phase).toBe("Removed");
    expect(s.state().options.deleteOnEviction).toBe(true);
    const own = s.schedule({
      eventType: "Reboot",
      group: "avset-db",
      requireAllApprovals: false,
      startedSeconds: 1,
    });
    expect(own).toMatchObject({ requireAllApprovals: false, startedForMs: 1000 });
  });
});
