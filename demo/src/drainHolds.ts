import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScenarioStep } from "./scenario";

/**
 * Drains held until an operator's hold is in place. A story like "relays lost" stands on its hold
 * landing while the event's VMs drain: were a drain to end first (3 s is short on a loaded
 * machine), a relay could be elected and approve before the hold, and the story would be another.
 * So for each `hold` step marked `whileDraining`, the event it names is scheduled with an EventId
 * chosen here and a file `hold.drain.<EventId>` made first; the demo's hook (demo/hooks/hook.js,
 * given this folder) does not finish a drain of that event while the file exists. The player
 * removes it once the hold step was played: the status API showed the hold on an unapproved
 * event, or the step failed and the story is reported as not told.
 */
export class DrainHolds {
  /** Scenario name → the EventId its schedule step must use, while its drains are held. */
  private readonly held = new Map<string, string>();
  private readonly names: ReadonlySet<string>;

  private constructor(
    readonly dir: string,
    steps: readonly ScenarioStep[],
  ) {
    this.names = new Set(
      steps.flatMap((s) => (s.action === "hold" && s.whileDraining ? [s.name] : [])),
    );
  }

  static create(steps: readonly ScenarioStep[]): DrainHolds {
    return new DrainHolds(mkdtempSync(join(tmpdir(), "quiesce-demo-holds-")), steps);
  }

  /** Before the event `name` is scheduled: the EventId to give it when its drains are held. */
  beforeSchedule(name: string): string | undefined {
    if (!this.names.has(name)) return undefined;
    const eventId = randomUUID().toUpperCase();
    writeFileSync(this.file(eventId), "");
    this.held.set(name, eventId);
    return eventId;
  }

  /** After the hold step on `name` was played, whatever its outcome: its drains may end. */
  release(name: string): void {
    const eventId = this.held.get(name);
    if (eventId === undefined) return;
    rmSync(this.file(eventId), { force: true });
    this.held.delete(name);
  }

  /** Events whose drains are held now (their hold step not played yet). */
  holding(): string[] {
    return [...this.held.keys()];
  }

  releaseAll(): void {
    for (const name of [...this.held.keys()]) this.release(name);
  }

  remove(): void {
    this.held.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private file(eventId: string): string {
    return join(this.dir, `hold.drain.${eventId}`);
  }
}
