import { type ClusterState, type GateVerdict, liveRelaysVerdicts } from "@quiesce/core";
import {
  type Gate,
  GUEST_PATCHING_GATE,
  type GuestPatching,
  type Policy,
} from "@quiesce/protocol/policy";
import { settingName } from "../options";
import { type ControlPlanePorts, describeProblem, type HttpProbe } from "./ports";

/**
 * A failing HTTP or alert-rule verdict is reused for this long per instance, so a burst of
 * reports of a blocked event probes once; a passing one never is: the round that elects an
 * approver has checked every gate itself.
 */
const FAILING_CACHE_MS = 5_000;

/** The guest-patching gate's verdict (guestPatching/service.ts); null: the policy has none. */
export type PatchingVerdict = (g: GuestPatching) => Promise<GateVerdict | null>;

/**
 * Evaluates a cluster's safety gates for the core (core/src/rules/gates.ts): HTTP probes and alert
 * rules over the network, live relays over `state`, which must hold every member of the cluster
 * and the readiness rows of its active events (a sweep's load). Never throws: a gate that cannot
 * be evaluated fails, saying why.
 */
export class GateEvaluator {
  private readonly cache = new Map<string, { at: number; verdict: GateVerdict }>();

  constructor(
    private readonly probe: HttpProbe,
    private readonly ports: ControlPlanePorts | null,
    private readonly now: () => number,
    private readonly patching?: PatchingVerdict,
  ) {}

  async evaluate(state: ClusterState, policy: Policy): Promise<GateVerdict[]> {
    const now = this.now();
    const verdicts = await Promise.all(
      policy.gates.map(async (gate): Promise<GateVerdict[]> => {
        if (gate.kind === "liveRelays") return liveRelaysVerdicts(state, now, policy, gate);
        return [await this.cached(state.cluster, gate, now)];
      }),
    );
    return [...verdicts.flat(), ...(await this.patchingVerdict(policy))];
  }

  /** Never cached: the runs' rows are read on every evaluation, like a passing verdict. */
  private async patchingVerdict(policy: Policy): Promise<GateVerdict[]> {
    if (!this.patching) return [];
    const v = await this.patching(policy.guestPatching).catch(
      (e: unknown): GateVerdict => ({
        name: GUEST_PATCHING_GATE,
        pass: false,
        detail: `could not read the patch runs: ${(e as Error).message}`,
      }),
    );
    return v ? [v] : [];
  }

  private async cached(cluster: string, gate: Exclude<Gate, { kind: "liveRelays" }>, now: number) {
    const key = `${cluster}\u0000${JSON.stringify(gate)}`;
    const hit = this.cache.get(key);
    if (hit && !hit.verdict.pass && now - hit.at < FAILING_CACHE_MS) return hit.verdict;
    const verdict = await this.check(gate).catch(
      (e: unknown): GateVerdict => ({
        name: gate.name,
        pass: false,
        detail: `could not be evaluated: ${(e as Error).message}`,
      }),
    );
    this.cache.set(key, { at: now, verdict });
    return verdict;
  }

  private async check(gate: Exclude<Gate, { kind: "liveRelays" }>): Promise<GateVerdict> {
    if (gate.kind === "http") return { name: gate.name, ...(await this.probe(gate)) };
    if (!this.ports)
      return {
        name: gate.name,
        pass: false,
        detail: `the control plane is off (${settingName("CONTROL_PLANE")}): alert rules cannot be read`,
      };
    const firing = await this.ports.alertFiring(gate.alertRuleId);
    if (!firing.ok)
      return {
        name: gate.name,
        pass: false,
        detail: `could not read its alerts: ${describeProblem(firing.error)}`,
      };
    return {
      name: gate.name,
      pass: !firing.value,
      detail: firing.value ? "alert rule is firing" : "alert rule is not firing",
    };
  }
}
