import type { AgentlessResult } from "./agentless";
import type { AttestationResult } from "./attestation";
import type { ColdStartResult } from "./coldStart";
import type { ControlPlaneResult } from "./controlPlane";
import type { ConvergenceResult } from "./convergence";
import type { CostResult } from "./cost";
import type { DeliveryResult } from "./delivery";
import type { EventsResult } from "./events";
import type { FigureRecord } from "./figures";
import type { PartitionsResult } from "./partitions";
import type { ScaleResult } from "./scale";
import type { StatusScaleResult } from "./statusScale";
import type { ThroughputResult } from "./throughput";

/**
 * One run of `npm run bench`, as bench/results/latest.json holds it: main.ts measures it, render.ts
 * writes it as markdown, resultsFile.ts reads an earlier one back.
 */
export interface BenchResults {
  date: string;
  machine: { cpu: string; cores: number; node: string; platform: string };
  durationSeconds: number;
  /**
   * Each figure of the run: measured, partial (some rounds lost, each with why) or failed (with
   * why), how long it took and how idle the machine was meanwhile. Absent from runs before it.
   */
  figures?: FigureRecord[];
  /** (a)(b); every section is absent when its figure failed (its record in `figures` says why). */
  events?: EventsResult;
  throughput?: ThroughputResult;
  /** (e) budget hand-off and (f) convergence after a coordinator restart. */
  convergence?: ConvergenceResult;
  /** (g) cost per VM-month from measured operations, wall time and telemetry. */
  cost?: CostResult;
  /** (h) entities per second per table partition at 1,000 VMs in one cluster during events. */
  partitions?: PartitionsResult;
  /** (i) 10,000 VMs over three coordinator processes behind a round-robin front. */
  scale?: ScaleResult;
  /** (j) approval through Azure Resource Manager once the control plane's fallback is due. */
  controlPlane?: ControlPlaneResult;
  /** (k) what a report costs with attestation: bound, the challenge, the first proof, a re-attestation. */
  attestation?: AttestationResult;
  /** (m) agentless: Event Grid delivery → ARM approval with 1 s drains. */
  agentless?: AgentlessResult;
  /** (n) an Event Grid delivery of 1,000 events at 1,000 and 100,000 stored events. */
  delivery?: DeliveryResult;
  /** (l) the packaged Function app from a fresh process: load, memory, the first report. */
  coldStart?: ColdStartResult;
  relayIdle: unknown;
  /** bench/results/status-scale.json, measured just before by bench/statusMain.ts. */
  statusScale: StatusScaleResult | null;
}
