import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { ManualClock, ScaledClock, type SimClock } from "./clock";
import { handleControl } from "./control/routes";
import type { ControlResult } from "./controlResult";
import { type ClockView, FabricEngine, type Timeline } from "./engine";
import { sendJson } from "./http/io";
import { ImdsHandler } from "./imds/handler";
import type { InjectFaultInput, JumpIncarnationInput, ScheduleEventInput } from "./model/commands";
import type { ScheduledEventsApiVersion } from "./model/document";
import type { FabricOptions, FabricState, Fault, SimEvent, TimelineEntry } from "./model/types";
import { defaultTopology, type GroupSpec, Topology, type TopologyInput } from "./topology";

export interface FabricSimulatorOptions extends Partial<FabricOptions> {
  /** The cluster; the demo default (two availability sets of 4, a placement group of 6) when absent. */
  readonly topology?: TopologyInput;
  /** Simulated seconds per real second (60: a 15-minute notice passes in 15 s). Default 1. */
  readonly timeScale?: number;
  /** Simulated time at start (epoch ms); now when absent. */
  readonly simStart?: number;
  /** Inject a clock (a `ManualClock` in tests); overrides timeScale and simStart. */
  readonly clock?: SimClock;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /**
   * Real ms between background catch-ups of the model, so Started/removal land on the timeline
   * with a real time close to when they were due even when nobody polls. Default 50 for a
   * scaled clock; a manual clock never ticks on its own.
   */
  readonly tickMs?: number;
}

/** A thrown control failure of the in-process API (the HTTP API answers the same as status + JSON). */
export class FabricControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues?: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(
      issues?.length
        ? `${message}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`
        : message,
    );
    this.name = "FabricControlError";
  }
}

function unwrap<T>(r: ControlResult<T>): T {
  if (r.ok) return r.value;
  throw new FabricControlError(r.error.status, r.error.message, r.error.issues);
}

export interface FabricSimulator {
  /** `http://127.0.0.1:<port>`: the control API is under `/control`, each VM's IMDS under `/vm/<name>`. */
  readonly url: string;
  readonly port: number;
  readonly clock: SimClock;
  /** What to set as the relay's IMDS base URL (instead of `http://169.254.169.254`). */
  imdsUrl(vmName: string): string;
  vmNames(): string[];
  schedule(event: ScheduleEventInput): SimEvent;
  cancel(eventId: string): SimEvent;
  startNow(eventId: string): SimEvent;
  changeResources(eventId: string, resources: string[]): SimEvent;
  jumpIncarnation(group: string, by?: JumpIncarnationInput["by"]): number;
  injectFault(fault: InjectFaultInput): Fault[];
  clearFaults(vm?: string): number;
  addGroups(groups: GroupSpec[]): string[];
  /** Move simulated time forward (both clocks), then apply whatever became due. */
  advance(seconds: number): ClockView;
  now(): ClockView;
  event(eventId: string): SimEvent | undefined;
  events(): SimEvent[];
  timeline(sinceSeq?: number): Timeline;
  /**
   * Hear every new timeline entry (document change, StartRequests, fault, deletion) as it happens,
   * e.g. for a live display; returns the unsubscribe function. Started-at-NotBefore and removals
   * are heard when the model catches up: on the next request or tick (`tickMs`).
   */
  onTimeline(listener: (entry: TimelineEntry) => void): () => void;
  /** The document every VM of the group sees right now. */
  document(group: string, apiVersion?: ScheduledEventsApiVersion): ScheduledEventsDocument;
  state(): FabricState;
  reset(): void;
  stop(): Promise<void>;
}

function route(engine: FabricEngine, imds: ImdsHandler, base: () => string) {
  const imdsUrl = (vm: string) => `${base()}/vm/${encodeURIComponent(vm)}`;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://simulator");
    const path = url.pathname;
    const vm = /^\/vm\/([^/]+)(\/.*)?$/.exec(path);
    if (vm)
      return imds.handle(
        req,
        res,
        decodeURIComponent(vm[1] as string),
        vm[2] ?? "/",
        url.searchParams,
      );
    if (path === "/control" || path.startsWith("/control/")) {
      return handleControl(
        engine,
        req,
        res,
        path.slice("/control".length) || "/",
        url.searchParams,
        imdsUrl,
      );
    }
    return sendJson(res, 404, {
      error:
        "not found: IMDS is under /vm/<vmName>/metadata/..., the control API under /control/...",
    });
  };
}

/** Start the simulated fabric: one HTTP server for every VM's IMDS and the control API. */
export async function startFabricSimulator(
  options: FabricSimulatorOptions = {},
): Promise<FabricSimulator> {
  const topology = Topology.parse(options.topology ?? defaultTopology());
  const clock =
    options.clock ?? new ScaledClock(options.timeScale ?? 1, options.simStart ?? Date.now());
  const engine = new FabricEngine(topology, options, clock);
  const imds = new ImdsHandler(engine);
  let base = "";
  const handler = route(engine, imds, () => base);
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `simulator error: ${String(err)}` });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  const tickMs = options.tickMs ?? (clock instanceof ManualClock ? 0 : 50);
  const ticker = tickMs > 0 ? setInterval(() => engine.sync(), tickMs) : undefined;
  ticker?.unref();

  let stopped: Promise<void> | undefined;
  return {
    url: base,
    port,
    clock,
    imdsUrl: (vm) => `${base}/vm/${encodeURIComponent(vm)}`,
    vmNames: () => Object.keys(engine.state().vms),
    schedule: (event) => unwrap(engine.schedule(event)),
    cancel: (eventId) => unwrap(engine.cancel({ eventId })),
    startNow: (eventId) => unwrap(engine.startNow({ eventId })),
    changeResources: (eventId, resources) => unwrap(engine.changeResources({ eventId, resources })),
    jumpIncarnation: (group, by) => unwrap(engine.jumpIncarnation({ group, by })),
    injectFault: (fault) => unwrap(engine.injectFault(fault)),
    clearFaults: (vm) => unwrap(engine.clearFaults(vm === undefined ? {} : { vm })),
    addGroups: (groups) => unwrap(engine.addGroups({ groups })),
    advance: (seconds) => unwrap(engine.advanceClock({ seconds })),
    now: () => engine.clockView(),
    event: (eventId) => engine.event(eventId),
    events: () => engine.events(),
    timeline: (sinceSeq) => engine.timeline(sinceSeq),
    onTimeline: (listener) => engine.subscribe(listener),
    document: (group, apiVersion) => engine.document(group, apiVersion),
    state: () => engine.state(),
    reset: () => {
      engine.reset();
    },
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        if (ticker) clearInterval(ticker);
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
