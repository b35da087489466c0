import { isLive, type Member } from "@quiesce/core";
import type { Clock, Logger } from "@quiesce/protocol";
import type { GroupSummary } from "@quiesce/protocol/status";
import type { AcknowledgeScope, VmIdentity } from "../arm";
import { controlPlaneUnavailableNotification, type RelyingPlace } from "../notify/controlPlaneDue";
import type { Notifier } from "../notify/notifier";
import type { Policies } from "../options";
import { groupOf } from "../status/groups";
import {
  placeKey,
  type RegionSupportSnapshot,
  type RegionSupportTable,
} from "../store/regionSupport";
import type { Telemetry } from "../telemetry/metrics";
import type { ArmOutcome } from "./ports";
import {
  approvalView,
  nextSupport,
  reliesOnControlPlane,
  type SupportSource,
} from "./regionSupport";

/** The probe's and the region look-up's ARM calls (regionPorts.ts). */
export interface RegionPorts {
  /** The acknowledge of an id that names no event, on this scope (arm/regionProbe.ts). */
  probe(scope: AcknowledgeScope): Promise<AcknowledgeAnswer>;
  scopeOf(vm: VmIdentity): Promise<ArmOutcome<AcknowledgeScope>>;
  scopeOfResource(resourceId: string): AcknowledgeScope | null;
  region(resourceId: string): Promise<ArmOutcome<string>>;
}
export type AcknowledgeAnswer = { ok: true } | { ok: false; status: number; code: string };

export interface RegionWatchDeps {
  clock: Clock;
  telemetry: Pick<Telemetry, "controlPlane">;
  notifier: Pick<Notifier, "afterCommit">;
  policies: Pick<Policies, "for" | "all">;
  log: Logger;
}

/** How often each instance probes (and at its first sweep after start-up). */
export const PROBE_INTERVAL_MS = 6 * 3_600_000;
/** The status API reads the table at most this often per instance. */
const SNAPSHOT_TTL_MS = 60_000;

interface Place extends RelyingPlace {
  cluster: string;
  key: string;
  /** A VM of the group (its relay's identity), or the agentless cluster's resource id. */
  vm?: VmIdentity;
  resourceId?: string;
  relies: boolean;
}

/**
 * Where Azure offers approval through ARM (docs/control-plane.md, "Where Azure offers
 * approval"): learnt from every real acknowledge's answer and from a harmless probe per region,
 * at the first sweep after start-up and every PROBE_INTERVAL_MS; kept in Table Storage per
 * region (store/regionSupport.ts); shown per group in the status API; alerted on
 * (`controlPlaneUnavailable`) where a group relies on it and Azure does not offer it.
 */
export class RegionWatch {
  private snapshot: { at: number; value: RegionSupportSnapshot } | null = null;
  private readonly regionOf = new Map<string, string>();
  private lastProbe = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ports: RegionPorts,
    private readonly table: RegionSupportTable,
    private readonly deps: RegionWatchDeps,
    private readonly intervalMs = PROBE_INTERVAL_MS,
  ) {}

  /** After a real acknowledge: what its answer says about the VM's region. Never throws. */
  async learn(cluster: string, vm: VmIdentity, answer: AcknowledgeAnswer): Promise<void> {
    try {
      const region = await this.region(vm.resourceId);
      if (region) await this.record(cluster, region, answer, "acknowledge", []);
    } catch (e) {
      this.deps.log.warn("control plane: could not record the region's support", { error: e });
    }
  }

  /**
   * Probes each region the clusters' groups run in, once per interval per instance: one
   * representative scope per region. `members` reads every cluster's members
   * (StatusQueries.members), only when a probe is due; agentless clusters' azureResources come
   * from their policies.
   */
  async probeDue(
    members: () => Promise<ReadonlyMap<string, readonly Member[]>>,
  ): Promise<{ probed: number; places: number } | null> {
    const now = this.deps.clock.now();
    if (now - this.lastProbe < this.intervalMs) return null;
    this.lastProbe = now;
    const agentless = new Map<string, readonly string[]>();
    for (const [cluster, p] of this.deps.policies.all.clusters)
      if (p.agentless.enabled && p.azureResources.length > 0)
        agentless.set(cluster, p.azureResources);
    const places = this.places(await members(), agentless, now);
    const byRegion = new Map<string, Place[]>();
    const placeRegions = new Map<string, string>();
    for (const p of places) {
      const region = await this.region(p.vm?.resourceId ?? p.resourceId ?? "");
      if (!region) continue;
      placeRegions.set(p.key, region);
      byRegion.set(region, [...(byRegion.get(region) ?? []), p]);
    }
    await this.table.savePlaces(placeRegions);
    let probed = 0;
    for (const [region, inRegion] of byRegion) {
      for (const p of inRegion) {
        const scope = p.vm ? await this.ports.scopeOf(p.vm) : scopeResult(p, this.ports);
        if (!scope.ok) continue;
        const started = this.deps.clock.now();
        const answer = await this.ports.probe(scope.value);
        const outcome = answer.ok ? "ok" : answer.code;
        this.deps.telemetry.controlPlane(
          p.cluster,
          "probe",
          outcome,
          this.deps.clock.now() - started,
        );
        probed++;
        await this.record(p.cluster, region, answer, "probe", inRegion);
        break; // one scope per region
      }
    }
    this.snapshot = null;
    return { probed, places: places.length };
  }

  /** The status API's groups with their approval availability (one table read per minute). */
  async annotate(cluster: string, groups: readonly GroupSummary[]): Promise<GroupSummary[]> {
    const { regions, places } = await this.read();
    const policy = this.deps.policies.for(cluster);
    const shown = groups.map((g) => {
      const region = places.get(placeKey(cluster, g.kind, g.name)) ?? null;
      const relies = reliesOnControlPlane(policy, { agentless: false, liveMembers: g.liveMembers });
      return {
        ...g,
        controlPlaneApproval: approvalView(region, regions.get(region ?? ""), relies),
      };
    });
    if (!policy.agentless.enabled) return shown;
    for (const id of policy.azureResources) {
      const scope = this.ports.scopeOfResource(id);
      if (!scope) continue;
      const kind = scope.resourceType === "availabilitySets" ? "availabilitySet" : "scaleSet";
      const region = places.get(placeKey(cluster, "azureResource", id)) ?? null;
      const relies = reliesOnControlPlane(policy, { agentless: true, liveMembers: 0 });
      shown.push({
        kind: scope.resourceType === "virtualMachines" ? "ungrouped" : kind,
        name: scope.name,
        memberCount: 0,
        liveMembers: 0,
        controlPlaneApproval: approvalView(region, regions.get(region ?? ""), relies),
      });
    }
    return shown;
  }

  async read(): Promise<RegionSupportSnapshot> {
    const now = this.deps.clock.now();
    if (this.snapshot && now - this.snapshot.at < SNAPSHOT_TTL_MS) return this.snapshot.value;
    const value = await this.table.read();
    this.snapshot = { at: now, value };
    return value;
  }

  private async record(
    cluster: string,
    region: string,
    answer: AcknowledgeAnswer,
    how: SupportSource,
    relying: readonly Place[],
  ): Promise<void> {
    const prev = (await this.read()).regions.get(region);
    const next = nextSupport(prev, region, answer, how, this.deps.clock.now());
    if (!next) return;
    await this.table.saveRegion(next);
    this.snapshot = null;
    if (next.availability !== "notAvailable") return;
    const places = relying.length > 0 ? relying.filter((p) => p.relies) : [];
    if (how === "acknowledge")
      // A real acknowledge was the control plane standing in: its cluster relied on it.
      places.push({
        cluster,
        key: "",
        kind: "cluster",
        name: cluster,
        because: "noLiveRelay",
        relies: true,
      });
    for (const p of places) {
      const policy = this.deps.policies.for(p.cluster);
      const n = controlPlaneUnavailableNotification(p.cluster, p, next, policy);
      if (n) this.deps.notifier.afterCommit([n], policy);
    }
  }

  /** Region of a Compute resource, cached (a VM never changes region); null when ARM could not tell. */
  private async region(resourceId: string): Promise<string | null> {
    const key = resourceId.toLowerCase();
    const hit = this.regionOf.get(key);
    if (hit) return hit;
    const got = await this.ports.region(resourceId);
    if (!got.ok) return null;
    this.regionOf.set(key, got.value);
    return got.value;
  }

  private places(
    members: ReadonlyMap<string, readonly Member[]>,
    agentless: ReadonlyMap<string, readonly string[]>,
    now: number,
  ): Place[] {
    const out: Place[] = [];
    for (const [cluster, ms] of members) {
      const policy = this.deps.policies.for(cluster);
      const groups = new Map<
        string,
        { vm: VmIdentity; live: number; kind: string; name: string }
      >();
      for (const m of ms) {
        const g = groupOf(m);
        const key = placeKey(cluster, g.kind, g.name);
        const entry = groups.get(key) ?? { vm: m.vm, live: 0, ...g };
        if (isLive(m, now, policy)) entry.live++;
        groups.set(key, entry);
      }
      for (const [key, g] of groups) {
        const relies = reliesOnControlPlane(policy, { agentless: false, liveMembers: g.live });
        out.push({
          cluster,
          key,
          kind: g.kind,
          name: g.name,
          vm: g.vm,
          relies,
          because: "noLiveRelay",
        });
      }
    }
    for (const [cluster, ids] of agentless) {
      const relies = reliesOnControlPlane(this.deps.policies.for(cluster), {
        agentless: true,
        liveMembers: 0,
      });
      for (const id of ids)
        out.push({
          cluster,
          key: placeKey(cluster, "azureResource", id),
          kind: "azureResource",
          name: id,
          resourceId: id,
          relies,
          because: "agentless",
        });
    }
    return out;
  }
}

function scopeResult(p: Place, ports: RegionPorts): ArmOutcome<AcknowledgeScope> {
  const scope = ports.scopeOfResource(p.resourceId ?? "");
  return scope
    ? { ok: true, value: scope }
    : { ok: false, error: { status: 0, code: "InvalidResourceId", message: p.name } };
}
