import type { AdminState } from "@quiesce/core";
import type { Result } from "@quiesce/protocol";
import type { VmIdentity } from "@quiesce/protocol/imds";
import type { Gate } from "@quiesce/protocol/policy";
import type { ScheduledEventsQuery } from "../arm/resourceGraph";

/**
 * What the control plane needs from Azure, as the executor sees it: one port per operation,
 * implemented over the ARM client (arm.ts). Kept this narrow so the decisions around each call
 * (claim, record, retry) read without the HTTP, and so the executor is tested against the
 * fabric simulator's ARM through the real client.
 */
export interface ArmProblem {
  /** HTTP status; 0 when no answer came (network, timeout). */
  status: number;
  /** ARM's error.code, or the client's own (NetworkError, Timeout, InvalidResponse). */
  code: string;
  message: string;
  /** Set by `scheduledEvents` when throttled: come back no sooner (quota reset or Retry-After). */
  retryAfterMs?: number;
}

export type ArmOutcome<T> = Result<T, ArmProblem>;

export interface BackendAddress {
  poolId: string;
  ipConfigurationId: string;
}

/** One read of Resource Graph's scheduled events (the backstop for Event Grid deliveries). */
export type ScheduledEventsScan = ScheduledEventsQuery;

export interface ControlPlanePorts {
  /**
   * Acknowledge an event on the right scope for this VM; answers the scope it used.
   * `changeReference`: the event's change record, for the policy token (policyToken.ts).
   */
  acknowledge(
    vm: VmIdentity,
    eventId: string,
    changeReference?: string,
  ): Promise<ArmOutcome<{ scope: string }>>;
  /** The backend addresses of the VM's NIC ip configurations in load balancer pools. */
  backendAddresses(vm: VmIdentity): Promise<ArmOutcome<BackendAddress[]>>;
  adminState(address: BackendAddress): Promise<ArmOutcome<AdminState>>;
  /** Sets the admin state; with `onlyIf`, only when it currently is that (else leaves it). */
  setAdminState(
    address: BackendAddress,
    state: AdminState,
    onlyIf?: AdminState,
    changeReference?: string,
  ): Promise<ArmOutcome<{ before: AdminState; after: AdminState }>>;
  /** Whether an Azure Monitor alert of this rule is firing (Fired, not Closed). */
  alertFiring(alertRuleId: string): Promise<ArmOutcome<boolean>>;
  /** Every scheduled event Resource Graph holds for these subscriptions, paged and bounded. */
  scheduledEvents(subscriptions: readonly string[]): Promise<ArmOutcome<ScheduledEventsScan>>;
}

/** The HTTP gate's probe; it needs no ARM (only the managed identity for a bearer). */
export type HttpProbe = (
  gate: Extract<Gate, { kind: "http" }>,
) => Promise<{ pass: boolean; detail: string }>;

export const describeProblem = (p: ArmProblem): string =>
  `ARM ${p.status || "request"} ${p.code}: ${p.message}`;

/** What a change record call needs to know of the event and its VMs. */
export interface ChangeRecordRequest {
  cluster: string;
  eventId: string;
  eventType: string;
  /** Each affected VM's ARM id when known (a relay's report, or Azure's publication), else its name. */
  targets: Array<{ name: string; resourceId: string | null }>;
  /** NotBefore, or now for an event without one. */
  anticipatedStart: Date;
  anticipatedEnd: Date;
}

export interface ChangeRecordPorts {
  open(req: ChangeRecordRequest): Promise<ArmOutcome<{ id: string; status: string | null }>>;
  close(
    id: string,
    close: { comments: string; endedAt: Date },
  ): Promise<ArmOutcome<{ id: string; status: string | null }>>;
}
