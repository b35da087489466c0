import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import type { ArmApi, AzureSurroundings } from "../arm/api";
import type { AttestationStandIn } from "../attested/service";
import type { SimClock } from "../engine/clock";
import type { ClockView, Timeline } from "../engine/engine";
import type { EventGridApi } from "../eventGrid/service";
import type { HealthEndpoint } from "../health/gates";
import type { KubernetesStandIn } from "../kubernetes/api";
import type {
  DeleteInstancesInput,
  InjectFaultInput,
  JumpIncarnationInput,
  ScheduleEventInput,
} from "../model/commands";
import type { ScheduledEventsApiVersion } from "../model/document";
import type { FabricOptions, FabricState, Fault, SimEvent, TimelineEntry } from "../model/types";
import type { GroupSpec, TopologyInput } from "../topology/topology";

/** What `startFabricSimulator` takes and returns (the implementation is simulator.ts). */

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
  /** The loopback Kubernetes API server (see `FabricSimulator.kubernetes`). */
  readonly kubernetes?: {
    /** Real ms a controller waits after a pod is gone before re-creating it elsewhere (2000). */
    readonly recreateAfterMs?: number;
    /** Serve HTTPS with this certificate and key (PEM); plain HTTP on loopback otherwise. */
    readonly tls?: { readonly cert: string; readonly key: string };
  };
}

export interface FabricSimulator extends AzureSurroundings {
  /**
   * `http://127.0.0.1:<port>`: the control API is under `/control`, each VM's IMDS under
   * `/vm/<name>`, the health endpoints of HTTP gates under `/health/<name>`.
   */
  readonly url: string;
  readonly port: number;
  readonly clock: SimClock;
  /** The loopback Azure Resource Manager's base URL (the coordinator's QUIESCE_ARM_ENDPOINT). */
  readonly armUrl: string;
  /**
   * The managed-identity token endpoint on the ARM listener: set `IDENTITY_ENDPOINT=<endpoint>`
   * and `IDENTITY_HEADER=<header>` and `ManagedIdentityCredential` gets tokens for
   * `principalId` (the system-assigned identity; user-assigned ones via `arm.registerIdentity`).
   */
  readonly identity: {
    readonly endpoint: string;
    readonly header: string;
    readonly principalId: string;
    readonly clientId: string;
  };
  /** The ARM request log, injected ARM faults, role assignments, managed identities. */
  readonly arm: ArmApi;
  /**
   * A loopback Kubernetes API server whose nodes are the scale sets' VMs (AKS-style names and
   * `spec.providerID`s): nodes get/list/patch, pods list/get, the pods/eviction subresource with
   * PodDisruptionBudgets, bearer tokens and RBAC; and its controls (pods, PDBs, the request log).
   */
  readonly kubernetes: KubernetesStandIn;
  /**
   * The Event Grid system topic: webhook subscriptions that get every change of the events of
   * groups whose `scheduledEventsPolicy` opted in (see eventGrid/).
   */
  readonly eventGrid: EventGridApi;
  /** IMDS's attested documents: the test CA hierarchy and what to trust (attested/service.ts). */
  readonly attestation: AttestationStandIn;
  /** What `GET /health/<name>` answers (200 until set); the list shows how often each was probed. */
  setHealth(name: string, status: number): HealthEndpoint;
  health(): HealthEndpoint[];
  /** What to set as the relay's IMDS base URL (instead of `http://169.254.169.254`). */
  imdsUrl(vmName: string): string;
  vmNames(): string[];
  /** VMs the topology gives a relay: every VM but those declared `relay: false` (or in `relays: false` groups). */
  relayVmNames(): string[];
  schedule(event: ScheduleEventInput): SimEvent;
  /**
   * Delete instances of a scale set at once: one Terminate per VM (each shown to its whole
   * placement group), all with the same NotBefore.
   */
  deleteInstances(
    scaleSet: string,
    vms: string[],
    options?: Omit<DeleteInstancesInput, "scaleSet" | "vms">,
  ): SimEvent[];
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
