import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { type RelayHandle, type RelayOptions, startRelay } from "../../src";
import { parseRelaySettings } from "../../src/config";
import { silentLogger } from "../../src/log";
import { CoordinatorStandIn } from "./coordinatorStandIn";
import { ImdsStandIn, type StandInEvent } from "./imdsStandIn";
import { tempDir, waitFor } from "./wait";

export const RELAY_KEY = "test-relay-key-0123456789";

/** The environment of a relay against the IMDS and coordinator stand-ins, polling every 200 ms. */
export const standInSettings = (o: {
  coordinatorUrl: string;
  imdsUrl: string;
  stateFile: string;
}) => ({
  QUIESCE_COORDINATOR_URL: o.coordinatorUrl,
  QUIESCE_CLUSTER: "test",
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: RELAY_KEY,
  QUIESCE_IMDS_URL: o.imdsUrl,
  QUIESCE_POLL_INTERVAL_MS: "200",
  QUIESCE_STATE_FILE: o.stateFile,
});

/** Hook commands append "<hook> <EventId> <attempt>" to hooks.log in the test's temp dir. */
export const logHook = (dir: string) =>
  `echo "$QUIESCE_HOOK $QUIESCE_EVENT_ID $QUIESCE_HOOK_ATTEMPT" >> ${dir}/hooks.log`;

export async function hookLines(dir: string): Promise<string[]> {
  try {
    return (await readFile(join(dir, "hooks.log"), "utf8")).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

export const scheduled = (id: string, resources: string[], inMs = 15 * 60_000): StandInEvent => ({
  EventId: id,
  EventType: "Reboot",
  ResourceType: "VirtualMachine",
  Resources: resources,
  EventStatus: "Scheduled",
  NotBefore: new Date(Date.now() + inMs).toUTCString(),
  Description: "Host server is undergoing maintenance.",
  EventSource: "Platform",
  DurationInSeconds: -1,
});

export const started = (e: StandInEvent): StandInEvent => ({
  ...e,
  EventStatus: "Started",
  NotBefore: "",
});

/** One relay against its own IMDS and coordinator stand-ins, with fast timings. */
export class Harness {
  imds!: ImdsStandIn;
  coordinator!: CoordinatorStandIn;
  dir!: string;
  private removeDir!: () => Promise<void>;
  private relays: RelayHandle[] = [];

  async setUp(): Promise<this> {
    this.imds = await new ImdsStandIn("vm-0").start();
    this.coordinator = await new CoordinatorStandIn().start();
    const d = await tempDir();
    this.dir = d.path;
    this.removeDir = d.remove;
    return this;
  }

  get stateFile(): string {
    return join(this.dir, "state.json");
  }

  async start(
    settings: Record<string, unknown> = {},
    opts: RelayOptions = {},
  ): Promise<RelayHandle> {
    const s = parseRelaySettings({
      ...standInSettings({
        coordinatorUrl: this.coordinator.url,
        imdsUrl: this.imds.url,
        stateFile: this.stateFile,
      }),
      QUIESCE_DRAIN_COMMAND: logHook(this.dir),
      QUIESCE_RECOVER_COMMAND: logHook(this.dir),
      ...settings,
    });
    const relay = await startRelay(s, {
      logger: silentLogger,
      imds: { retryBaseMs: 20, retryMaxMs: 100, timeoutMs: 2_000 },
      reportRetry: { baseMs: 50, maxMs: 300 },
      heartbeatBoundsMs: { min: 100, max: 5_000 },
      ...opts,
    });
    this.relays.push(relay);
    return relay;
  }

  hooks(): Promise<string[]> {
    return hookLines(this.dir);
  }

  /** Waits until the relay has polled `n` more times, so "nothing more happened" means something. */
  async morePolls(n: number): Promise<void> {
    const target = this.imds.eventRequests().length + n;
    await waitFor(`${n} more IMDS polls`, () => this.imds.eventRequests().length >= target);
  }

  async tearDown(): Promise<void> {
    await Promise.all(this.relays.map((r) => r.stop()));
    await this.imds.stop();
    await this.coordinator.stop();
    await this.removeDir();
  }
}

/** A fresh Harness for each test of the calling suite, handed to `use`, torn down after it. */
export function useHarness(use: (h: Harness) => void): void {
  let h: Harness | undefined;
  beforeEach(async () => {
    h = await new Harness().setUp();
    use(h);
  });
  afterEach(async () => {
    await h?.tearDown();
  });
}
