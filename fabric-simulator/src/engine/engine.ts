import { randomUUID } from "node:crypto";
import type { ScheduledEventsDocument, StartRequestsBody } from "@quiesce/protocol/imds";
import {
  AddGroups,
  AdvanceClock,
  ChangeResources,
  ClearFaults,
  DeleteInstances,
  EventRef,
  InjectFault,
  JumpIncarnation,
  ScheduleEvent,
} from "../model/commands";
import { type ControlResult, lift, parseCommand } from "../model/controlResult";
import { renderDocument, type ScheduledEventsApiVersion } from "../model/document";
import {
  acknowledgeFromControlPlane,
  addGroups,
  advance,
  type ControlPlaneAcknowledge,
  cancelEvent,
  changeResources,
  clearFaults,
  createFabric,
  deleteInstances,
  type ImdsRoute,
  injectFault,
  jumpIncarnation,
  resetFabric,
  scheduleEvent,
  startEventNow,
  startRequests,
  takeFault,
} from "../model/fabric";
import type {
  FabricOptions,
  FabricState,
  Fault,
  Instant,
  Outcome,
  SimEvent,
  StartRequestOutcome,
  TimelineEntry,
} from "../model/types";
import { Topology } from "../topology/topology";
import type { SimClock } from "./clock";

export interface Timeline {
  readonly entries: readonly TimelineEntry[];
  /** Every event ever scheduled, still in a document or gone, in scheduling order. */
  readonly events: readonly SimEvent[];
  /** The seq of the newest entry (0 when empty): pass it as `since` to get only what comes next. */
  readonly lastSeq: number;
}

type Outcomes = ReadonlyArray<{ eventId: string; outcome: StartRequestOutcome }>;

export interface ClockView {
  readonly simMs: number;
  readonly simTime: string;
  readonly realMs: number;
  readonly timeScale: number | null;
}

/**
 * The imperative shell around the fabric model: holds the one current state, reads the clock,
 * lets simulated time catch up before every read or command, and parses every control input.
 */
export class FabricEngine {
  private currentState!: FabricState;
  private readonly listeners = new Set<(entry: TimelineEntry) => void>();
  /** Changes on reset and topology load so cached documents of an earlier fabric are never served. */
  private generationCounter = 0;
  /** Simulated ms at which the current generation began (what started with it, e.g. traffic, counts from there). */
  private generationStart: number;

  constructor(
    topology: Topology,
    readonly options: Partial<FabricOptions>,
    readonly clock: SimClock,
  ) {
    const r = createFabric(topology, options);
    if (!r.ok) throw new Error(`invalid topology: ${r.error.message}`);
    this.currentState = r.value.state;
    this.generationStart = clock.now();
  }

  private get current(): FabricState {
    return this.currentState;
  }
  /** Every state change goes through here, so listeners hear each new timeline entry once, in order. */
  private set current(next: FabricState) {
    const prev = this.currentState;
    this.currentState = next;
    if (this.listeners.size === 0 || next.timeline === prev.timeline) return;
    const fresh =
      next.nextSeq > prev.nextSeq && next.timeline.length >= next.nextSeq - prev.nextSeq
        ? next.timeline.slice(next.timeline.length - (next.nextSeq - prev.nextSeq))
        : [];
    for (const entry of fresh) {
      for (const listener of this.listeners) {
        try {
          listener(entry);
        } catch {
          // A failing listener (a display) must not break the fabric.
        }
      }
    }
  }

  /** Hear every new timeline entry as it happens; returns the unsubscribe function. */
  subscribe(listener: (entry: TimelineEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get generation(): number {
    return this.generationCounter;
  }

  get generationStartMs(): number {
    return this.generationStart;
  }

  now(): Instant {
    return { simMs: this.clock.now(), realMs: Date.now() };
  }

  /** The state as is, time not caught up: for listeners, which run inside a state change. */
  peek(): FabricState {
    return this.currentState;
  }

  /** Bring the model up to the clock and return it. */
  sync(): FabricState {
    this.current = advance(this.current, this.now());
    return this.current;
  }

  private apply<T>(f: (s: FabricState, at: Instant) => Outcome<T>): ControlResult<T> {
    const at = this.now();
    this.current = advance(this.current, at);
    const r = f(this.current, at);
    if (r.ok) this.current = r.value.state;
    return lift(r);
  }

  clockView(): ClockView {
    const simMs = this.clock.now();
    return {
      simMs,
      simTime: new Date(simMs).toISOString(),
      realMs: Date.now(),
      timeScale: this.clock.timeScale ?? null,
    };
  }

  advanceClock(input: unknown): ControlResult<ClockView> {
    const p = parseCommand(AdvanceClock, input);
    if (!p.ok) return p;
    this.clock.advance(p.value.seconds * 1000);
    this.sync();
    return { ok: true, value: this.clockView() };
  }

  schedule(input: unknown): ControlResult<SimEvent> {
    const p = parseCommand(ScheduleEvent, input);
    if (!p.ok) return p;
    const eventId = p.value.eventId ?? randomUUID().toUpperCase();
    return this.apply((s, at) => scheduleEvent(s, { ...p.value, eventId }, at));
  }

  /** Delete instances of a scale set: one Terminate per VM, one NotBefore for all. */
  deleteInstances(input: unknown): ControlResult<SimEvent[]> {
    const p = parseCommand(DeleteInstances, input);
    if (!p.ok) return p;
    const eventIds = p.value.vms.map(() => randomUUID().toUpperCase());
    return this.apply((s, at) => deleteInstances(s, { ...p.value, eventIds }, at));
  }

  cancel(input: unknown): ControlResult<SimEvent> {
    const p = parseCommand(EventRef, input);
    if (!p.ok) return p;
    return this.apply((s, at) => cancelEvent(s, p.value.eventId, at));
  }

  startNow(input: unknown): ControlResult<SimEvent> {
    const p = parseCommand(EventRef, input);
    if (!p.ok) return p;
    return this.apply((s, at) => startEventNow(s, p.value.eventId, at));
  }

  changeResources(input: unknown): ControlResult<SimEvent> {
    const p = parseCommand(ChangeResources, input);
    if (!p.ok) return p;
    return this.apply((s, at) => changeResources(s, p.value, at));
  }

  jumpIncarnation(input: unknown): ControlResult<number> {
    const p = parseCommand(JumpIncarnation, input);
    if (!p.ok) return p;
    return this.apply((s, at) => jumpIncarnation(s, p.value, at));
  }

  injectFault(input: unknown): ControlResult<Fault[]> {
    const p = parseCommand(InjectFault, input);
    if (!p.ok) return p;
    return this.apply((s, at) => injectFault(s, p.value, at));
  }

  clearFaults(input: unknown): ControlResult<number> {
    const p = parseCommand(ClearFaults, input);
    if (!p.ok) return p;
    return this.apply((s, at) => {
      const next = clearFaults(s, p.value.vm, at);
      return { ok: true, value: { state: next, value: s.faults.length - next.faults.length } };
    });
  }

  faults(): readonly Fault[] {
    return this.sync().faults;
  }

  addGroups(input: unknown): ControlResult<string[]> {
    const p = parseCommand(AddGroups, input);
    if (!p.ok) return p;
    return this.apply((s) => addGroups(s, p.value.groups));
  }

  /** Replace the whole topology: a fresh fabric, as after a reset. */
  loadTopology(input: unknown): ControlResult<FabricState> {
    const p = parseCommand(Topology, input);
    if (!p.ok) return p;
    const r = createFabric(p.value, this.current.options);
    if (!r.ok) return r;
    this.newGeneration(r.value.state);
    return { ok: true, value: r.value.state };
  }

  reset(): FabricState {
    this.newGeneration(resetFabric(this.current));
    return this.current;
  }

  private newGeneration(state: FabricState): void {
    this.current = state;
    this.generationCounter++;
    this.generationStart = this.clock.now();
  }

  event(eventId: string): SimEvent | undefined {
    const key = eventId.toLowerCase();
    const s = this.sync();
    return [...s.active, ...s.past].find((e) => e.eventId.toLowerCase() === key);
  }

  events(): SimEvent[] {
    const s = this.sync();
    const all = [...s.active, ...s.past];
    return all.sort(
      (a, b) =>
        a.scheduledAt.simMs - b.scheduledAt.simMs || a.scheduledAt.realMs - b.scheduledAt.realMs,
    );
  }

  timeline(sinceSeq = 0): Timeline {
    const s = this.sync();
    return {
      entries: sinceSeq > 0 ? s.timeline.filter((e) => e.seq > sinceSeq) : s.timeline,
      events: this.events(),
      lastSeq: s.nextSeq - 1,
    };
  }

  document(group: string, apiVersion?: ScheduledEventsApiVersion): ScheduledEventsDocument {
    return renderDocument(this.sync(), group, apiVersion);
  }

  state(): FabricState {
    return this.sync();
  }

  /** IMDS side: a VM's StartRequests (already parsed at the edge). */
  startRequests(vm: string, body: StartRequestsBody): ControlResult<Outcomes> {
    return this.apply((s, at) => startRequests(s, vm, body, at));
  }

  /** ARM side: the Maintenance RP's acknowledge, through the same approval path as StartRequests. */
  acknowledge(cmd: ControlPlaneAcknowledge): ControlResult<Outcomes> {
    return this.apply((s, at) => acknowledgeFromControlPlane(s, cmd, at));
  }

  /** IMDS side: whether this request hits an injected fault (and count it against the fault). */
  takeFault(vm: string, route: ImdsRoute): { status?: number; latencyMs?: number } {
    const s = this.sync();
    const { state, ...fault } = takeFault(s, vm, route, this.now());
    this.current = state;
    return fault;
  }
}
