import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DrainHolds } from "./drainHolds";
import type { ScenarioStep } from "./scenario";

/**
 * "relays lost" stands on the operator's hold landing while the event's VMs drain: the demo hook
 * does not finish a drain of that event until the player has played the hold step.
 */

const HOOK = resolve(__dirname, "..", "hooks", "hook.js");
const steps: ScenarioStep[] = [
  {
    at: 0,
    action: "schedule",
    name: "relays lost",
    event: { eventType: "Freeze", resources: ["db-0"] },
  },
  { at: 0, action: "hold", name: "relays lost", whileDraining: true },
  {
    at: 10,
    action: "schedule",
    name: "other",
    event: { eventType: "Freeze", resources: ["db-2"] },
  },
  { at: 10, action: "hold", name: "other" },
] as ScenarioStep[];

const children: ChildProcess[] = [];
const holdsMade: DrainHolds[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const h of holdsMade.splice(0)) h.remove();
});

function runHook(hook: string, eventId: string, dir: string) {
  const child = spawn(process.execPath, [HOOK, "0", dir], {
    env: { ...process.env, QUIESCE_HOOK: hook, QUIESCE_EVENT_ID: eventId, QUIESCE_VM_NAME: "db-0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  /** Once the hook says it waits for the hold (it can only end once the hold file is gone). */
  const waiting = new Promise<void>((r) => {
    let text = "";
    child.stderr?.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes("held until the operator's hold")) r();
    });
  });
  return { child, exit, waiting };
}

/** Resolves once the hook exits, rejects after `ms` (bounded: a held hook never exits). */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms),
    ),
  ]);

describe("drains held until the operator's hold", () => {
  it("gives an EventId and a hold only to the events whose hold step lands while they drain", () => {
    const holds = DrainHolds.create(steps);
    holdsMade.push(holds);
    const id = holds.beforeSchedule("relays lost");
    expect(id).toMatch(/^[0-9A-F-]{36}$/);
    expect(holds.beforeSchedule("other")).toBeUndefined();
    expect(holds.holding()).toEqual(["relays lost"]);
    expect(existsSync(join(holds.dir, `hold.drain.${id}`))).toBe(true);
    holds.release("relays lost");
    expect(holds.holding()).toEqual([]);
    expect(existsSync(join(holds.dir, `hold.drain.${id}`))).toBe(false);
  });

  it("keeps the demo hook's drain of a held event running until it is released; other hooks end at once", async () => {
    const holds = DrainHolds.create(steps);
    holdsMade.push(holds);
    const id = holds.beforeSchedule("relays lost") as string;

    const held = runHook("drain", id, holds.dir);
    await within(held.waiting, 10_000);
    // Other events' drains and this event's recover are not held.
    expect(await within(runHook("drain", "0000-OTHER", holds.dir).exit, 10_000)).toBe(0);
    expect(await within(runHook("recover", id, holds.dir).exit, 10_000)).toBe(0);
    // Waiting for the hold since before both ran, it is waiting still.
    expect(held.child.exitCode).toBeNull();

    holds.release("relays lost");
    expect(await within(held.exit, 10_000)).toBe(0);
  });

  it("ignores an EventId that could name a path", async () => {
    const holds = DrainHolds.create(steps);
    holdsMade.push(holds);
    expect(await within(runHook("drain", "../x", holds.dir).exit, 10_000)).toBe(0);
  });
});
