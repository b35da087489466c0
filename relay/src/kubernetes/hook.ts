import type { Clock } from "@quiesce/protocol";
import { isAdvisory, type VmIdentity } from "@quiesce/protocol/imds";
import { z } from "zod";
import type { RelayState } from "../decisions/state";
import type { HookOutcome } from "../hooks/outcome";
import type { HookRunner } from "../hooks/runner";
import type { Logger } from "../log";
import { type KubernetesDrainOptions, settingName } from "../options";
import { connectKubernetes, type KubernetesApi, type KubernetesConnection } from "./client";
import { ConditionsWriter } from "./conditionsWriter";
import { drainNode } from "./drain";
import { NodeFinder } from "./node";
import { recoverNode } from "./recover";

/**
 * QUIESCE_KUBERNETES_DRAIN: the built-in drain runs before the configured drain hook (command,
 * URL or none), which runs only if the node drained; the recover hook runs first and then the
 * node is uncordoned, the reverse order. Both share the hook's one deadline. Beside them, the
 * node's KEP-5683 lifecycle conditions follow the relay's state (./conditionsWriter.ts). For an
 * advisory event (a Spot rebalance recommendation) the drain is gentle: the pods' own grace
 * periods, and the hook timeout as the only deadline (decisions/timeouts.ts).
 */

/** How often the drain lists its node's pods: fast enough for a Preempt's 30 s. */
export const POLL_MS = 500;

/** What a pod's environment says about the API server (the in-cluster configuration). */
const InCluster = z.object({
  KUBERNETES_SERVICE_HOST: z.string().min(1),
  KUBERNETES_SERVICE_PORT: z.string().regex(/^\d{1,5}$/),
});

export function apiServerUrl(
  options: Pick<KubernetesDrainOptions, "apiUrl">,
  env: Record<string, string | undefined>,
): string {
  if (options.apiUrl) return options.apiUrl;
  const e = InCluster.safeParse(env);
  if (!e.success)
    throw new Error(
      `${settingName("KUBERNETES_API_URL")} is not set and KUBERNETES_SERVICE_HOST/PORT are not in the environment (is the relay running in a pod?)`,
    );
  const host = e.data.KUBERNETES_SERVICE_HOST.includes(":")
    ? `[${e.data.KUBERNETES_SERVICE_HOST}]`
    : e.data.KUBERNETES_SERVICE_HOST;
  return `https://${host}:${e.data.KUBERNETES_SERVICE_PORT}`;
}

export interface KubernetesHookOptions {
  log: Logger;
  clock: Clock;
  /** Tests: another client or poll interval. */
  connect?: (c: KubernetesConnection) => Promise<KubernetesApi>;
  pollMs?: number;
  env?: Record<string, string | undefined>;
}

function combine(first: HookOutcome, second: HookOutcome): HookOutcome {
  const result = first.result !== "succeeded" ? first.result : second.result;
  return {
    result,
    detail: `${first.detail}; ${second.detail}`,
    output: [first.output, second.output].filter((o) => o !== "").join("\n"),
  };
}

/** The hook runner, and what the relay shows its state to after every change. */
export interface KubernetesHooks extends HookRunner {
  observe(state: RelayState, vm: VmIdentity, signal: AbortSignal): void;
  /** Resolves once the conditions of every state shown so far are written (tests). */
  conditionsSettled(): Promise<void>;
}

export function kubernetesHooks(
  options: KubernetesDrainOptions,
  base: HookRunner,
  o: KubernetesHookOptions,
): KubernetesHooks {
  let api: Promise<KubernetesApi> | undefined;
  const connect = () => {
    api ??= (o.connect ?? connectKubernetes)({
      apiUrl: apiServerUrl(options, o.env ?? process.env),
      tokenFile: options.tokenFile,
      caFile: options.caFile,
    }).catch((e: unknown) => {
      api = undefined; // a later hook tries again
      throw e;
    });
    return api;
  };
  // Loaded at start, not at the first event: compiling the client takes most of a second, which
  // a Preempt's 30 s should not pay (a relay that drains Kubernetes carries it anyway).
  connect().catch((e: unknown) =>
    o.log.warn("Kubernetes client not ready; the drain will try again", {
      error: e instanceof Error ? e.message : String(e),
    }),
  );
  const conditions = new ConditionsWriter(connect, o.log, o.clock);
  const runner: HookRunner = async (payload, timeoutMs, signal) => {
    const deadlineMs = o.clock.now() + timeoutMs;
    let k8s: KubernetesApi;
    try {
      k8s = await connect();
    } catch (e) {
      const outcome: HookOutcome = {
        result: "failed",
        detail: `Kubernetes client: ${e instanceof Error ? e.message : String(e)}`,
        output: "",
      };
      return payload.hook === "drain"
        ? outcome
        : combine(await base(payload, timeoutMs, signal), outcome);
    }
    const c = {
      api: k8s,
      finder: new NodeFinder(k8s, payload.vm.resourceId),
      eventId: payload.event.EventId,
      deadlineMs,
      signal,
      clock: o.clock,
      log: o.log,
      pollMs: o.pollMs ?? POLL_MS,
      gentle: payload.advisory ?? isAdvisory(payload.event),
      spot: { eventType: payload.event.EventType, policy: options.karpenterSpot },
    };
    if (payload.hook === "drain") {
      const drained = await drainNode(c, options.excludeFromLoadBalancers);
      if (drained.result !== "succeeded") return drained;
      const left = Math.max(1_000, deadlineMs - o.clock.now());
      return combine(drained, await base(payload, left, signal));
    }
    const recovered = await base(payload, timeoutMs, signal);
    if (recovered.result === "interrupted") return recovered;
    return combine(recovered, await recoverNode(c));
  };

  return Object.assign(runner, {
    observe: (state: RelayState, vm: VmIdentity, signal: AbortSignal) =>
      conditions.observe(state, vm, signal),
    conditionsSettled: () => conditions.settled(),
  });
}
