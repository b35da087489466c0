import { randomUUID } from "node:crypto";
import type { FabricEngine } from "../engine/engine";
import { PatchRunBook } from "../maintenance/patchRuns";
import { type ControlResult, parseCommand } from "../model/controlResult";
import type { Instant } from "../model/types";
import type { Topology } from "../topology/topology";
import { ActionRuleStore } from "./actionRuleStore";
import { fireAlert, resolveAlert } from "./alerts";
import { ChangeSafetyPolicy, type ChangeSafetyState, checkWrite } from "./changeSafety";
import {
  FireAlert,
  Grant,
  InjectArmFault,
  MaintenanceBehaviour,
  ResolveAlert,
  Revoke,
} from "./commands";
import type { ArmAnswer } from "./errors";
import { injectFault, takeFault } from "./faults";
import type { IdentityRegistry } from "./identity";
import { resourceGroupId } from "./ids";
import { authorized, grant, revoke } from "./rbac";
import {
  initialQuota,
  type QuotaDecision,
  ResourceGraphQuota,
  type ResourceGraphQuotaConfig,
  takeQuery,
} from "./resourceGraphQuota";
import { advanceTraffic } from "./traffic";
import type { AlertInstance, ArmFault, ArmRequest, ArmWorld, RoleAssignment } from "./types";
import { createWorld } from "./world";

/** The request log keeps the newest this many requests. */
const MAX_LOGGED_REQUESTS = 10_000;

/**
 * The imperative shell of the loopback ARM: holds the current ARM world, starts a fresh one when
 * the fabric starts a new generation (reset, new topology), lets simulated traffic catch up with
 * the clock, and parses every control input. The resources themselves are rendered by pure
 * functions from the fabric state and this world.
 */
export class ArmEngine {
  private current: ArmWorld;
  /** The request log: shell state (appended per request), emptied with each new generation. */
  private log: ArmRequest[] = [];
  private nextSeq = 1;
  /** Update Manager's scheduled runs (Azure's, not the fabric's: a reset keeps them). */
  readonly patchRuns = new PatchRunBook();
  /** Alert processing rules, as written (resources/actionRules.ts). */
  readonly actionRules = new ActionRuleStore();

  constructor(
    readonly fabric: FabricEngine,
    readonly identity: IdentityRegistry,
  ) {
    this.current = this.fresh();
  }

  private fresh(): ArmWorld {
    return createWorld(
      this.fabric.state(),
      this.fabric.generation,
      this.identity.system.principalId,
      this.fabric.generationStartMs,
    );
  }

  /** The world of the fabric's current generation (a reset empties the log, faults, alerts...). */
  world(): ArmWorld {
    if (this.current.generation !== this.fabric.generation) {
      this.current = this.fresh();
      this.log = [];
      this.nextSeq = 1;
    }
    return this.current;
  }

  private set(next: ArmWorld): void {
    this.current = next;
  }

  topology(): Topology {
    return this.fabric.state().topology;
  }

  now(): Instant {
    return this.fabric.now();
  }

  /** Generate the simulated traffic due up to now; before every read and admin-state change. */
  syncTraffic(): ArmWorld {
    const w = advanceTraffic(this.world(), this.fabric.state(), this.now().simMs);
    this.set(w);
    return w;
  }

  update(f: (w: ArmWorld) => ArmWorld): ArmWorld {
    const next = f(this.world());
    this.set(next);
    return next;
  }

  // The request log.

  record(entry: Omit<ArmRequest, "seq" | "at">): void {
    this.world();
    this.log.push({ seq: this.nextSeq++, ...entry, at: this.now() });
    if (this.log.length > MAX_LOGGED_REQUESTS)
      this.log.splice(0, this.log.length - MAX_LOGGED_REQUESTS);
  }

  requests(sinceSeq = 0): ArmRequest[] {
    this.world();
    return this.log.filter((r) => r.seq > sinceSeq);
  }

  // Faults.

  injectFault(input: unknown): ControlResult<ArmFault> {
    const p = parseCommand(InjectArmFault, input);
    if (!p.ok) return p;
    const r = injectFault(this.world(), p.value);
    this.set(r.world);
    return { ok: true, value: r.fault };
  }

  takeFault(method: string, path: string): ArmFault | undefined {
    const r = takeFault(this.world(), method, path);
    this.set(r.world);
    return r.fault;
  }

  faults(): readonly ArmFault[] {
    return this.world().faults;
  }

  clearFaults(): number {
    const n = this.world().faults.length;
    this.update((w) => ({ ...w, faults: [] }));
    return n;
  }

  // Role assignments.

  grant(input: unknown): ControlResult<RoleAssignment> {
    const p = parseCommand(Grant, input);
    if (!p.ok) return p;
    const scope = (p.value.scope ?? resourceGroupId(this.topology())).replace(/(.)\/+$/, "$1");
    const assignment: RoleAssignment = {
      id: randomUUID(),
      principalId: p.value.principalId,
      scope,
      role: p.value.role,
      actions: p.value.actions,
    };
    this.update((w) => grant(w, assignment));
    return { ok: true, value: assignment };
  }

  revoke(input: unknown): ControlResult<number> {
    const p = parseCommand(Revoke, input);
    if (!p.ok) return p;
    const r = revoke(this.world(), p.value.principalId, p.value.scope);
    this.set(r.world);
    return { ok: true, value: r.removed };
  }

  roleAssignments(): readonly RoleAssignment[] {
    return this.world().roleAssignments;
  }

  authorized(principalId: string, resourceId: string, action: string): boolean {
    return authorized(this.world().roleAssignments, principalId, resourceId, action);
  }

  // Alerts.

  fireAlert(input: unknown): ControlResult<AlertInstance> {
    const p = parseCommand(FireAlert, input);
    if (!p.ok) return p;
    const r = fireAlert(
      this.world(),
      this.topology(),
      { ...p.value, alertId: randomUUID() },
      this.now().simMs,
    );
    if (!r.ok) return r;
    this.set(r.value.world);
    return { ok: true, value: r.value.alert };
  }

  resolveAlert(input: unknown): ControlResult<AlertInstance> {
    const p = parseCommand(ResolveAlert, input);
    if (!p.ok) return p;
    const r = resolveAlert(this.world(), this.topology(), p.value.rule, this.now().simMs);
    if (!r.ok) return r;
    this.set(r.value.world);
    return { ok: true, value: r.value.alert };
  }

  alerts(): readonly AlertInstance[] {
    return this.world().alerts;
  }

  // The Maintenance RP's answers.

  /** Replaces the whole behaviour (fields left out take their defaults). */
  setMaintenance(input: unknown): ControlResult<MaintenanceBehaviour> {
    const p = parseCommand(MaintenanceBehaviour, input);
    if (!p.ok) return p;
    this.update((w) => ({ ...w, maintenance: p.value }));
    return { ok: true, value: p.value };
  }

  maintenance(): MaintenanceBehaviour {
    return this.world().maintenance;
  }

  // Azure Change Safety (changeSafety.ts).

  /** Replaces the policy (fields left out take their defaults); tokens and records are kept. */
  setChangeSafety(input: unknown): ControlResult<ChangeSafetyPolicy> {
    const p = parseCommand(ChangeSafetyPolicy, input);
    if (!p.ok) return p;
    this.updateChangeSafety((s) => ({ ...s, policy: p.value }));
    return { ok: true, value: p.value };
  }

  /** The policy's verdict on a write (null: let through, audited or with a valid token). */
  checkPolicyToken(method: string, path: string, apiVersion: string, token: string | undefined) {
    let denied: ArmAnswer | null = null;
    this.updateChangeSafety((s) => {
      const r = checkWrite(s, { method, path, apiVersion, token }, Date.now());
      denied = r.denied;
      return r.state;
    });
    return denied as ArmAnswer | null;
  }

  changeSafety(): ChangeSafetyState {
    return this.world().changeSafety;
  }

  updateChangeSafety(f: (s: ChangeSafetyState) => ChangeSafetyState): void {
    this.update((w) => ({ ...w, changeSafety: f(w.changeSafety) }));
  }

  // Resource Graph's query quota (real time: Azure's windows do not follow the simulated clock).

  /** A new quota for the rest of this generation; every caller starts a fresh window. */
  setResourceGraphQuota(input: unknown): ControlResult<ResourceGraphQuotaConfig> {
    const p = parseCommand(ResourceGraphQuota, input);
    if (!p.ok) return p;
    this.update((w) => ({ ...w, resourceGraph: initialQuota(p.value) }));
    return { ok: true, value: p.value };
  }

  /** One query of the caller's quota, counted unless throttled. */
  takeResourceGraphQuery(principalId: string): QuotaDecision {
    const r = takeQuery(this.world().resourceGraph, principalId, Date.now());
    this.update((w) => ({ ...w, resourceGraph: r.state }));
    return r.decision;
  }
}
