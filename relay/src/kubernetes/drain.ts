import { delay } from "@quiesce/protocol";
import type { HookOutcome } from "../hooks/outcome";
import { errorText } from "../log";
import {
  afterEviction,
  dueEvictions,
  type EvictionAnswer,
  type Progress,
  verdict,
} from "./evictions";
import { stepsAside } from "./karpenter";
import { cordonPatch } from "./marks";
import { type KubernetesHookContext, patchDecided } from "./node";
import type { NodeInfo } from "./objects";

/**
 * The built-in Kubernetes drain: cordon the node (marked as Quiesce's, for this event), then
 * evict its pods through the Eviction API until none that needs evicting is left, or the
 * deadline passes. Idempotent, so a relay restarted mid-drain simply runs it again: a cordon
 * already there is left alone, a pod already gone answers 404, which counts as evicted. A gentle
 * drain (an advisory event's) evicts with the pods' own grace periods, never shortened.
 */
export async function drainNode(
  c: KubernetesHookContext,
  excludeFromLoadBalancers: boolean,
): Promise<HookOutcome> {
  const { api, clock, log, deadlineMs, signal } = c;
  // The deadline each eviction's grace period must fit in: none for a gentle drain.
  const graceDeadlineMs = c.gentle ? Number.POSITIVE_INFINITY : deadlineMs;
  let node: NodeInfo | undefined;
  let cordoned = false;
  let progress: Progress = {};
  let lastError: string | undefined;
  for (;;) {
    if (signal.aborted)
      return { result: "interrupted", detail: "relay stopped while the hook ran", output: "" };
    try {
      if (!node) {
        const found = await c.finder.find();
        // Several nodes of this VM: none is drained, so the VM is never reported drained.
        if (!found.ok) return { result: "failed", detail: found.error, output: "" };
        node = found.value;
        if (!node)
          return {
            result: "failed",
            detail: "no Kubernetes node has this VM's spec.providerID",
            output: "",
          };
      }
      // A Karpenter node's Spot signal, left to Karpenter by the operator's choice: no cordon.
      const aside = c.spot
        ? stepsAside(node, { EventType: c.spot.eventType }, c.spot.policy)
        : undefined;
      if (aside) {
        log.info("kubernetes drain stepped aside for Karpenter", {
          node: node.name,
          eventId: c.eventId,
        });
        return { result: "succeeded", detail: aside, output: "" };
      }
      if (!cordoned) {
        const r = await patchDecided(api, node, (n) =>
          cordonPatch(n, c.eventId, new Date(clock.now()).toISOString(), excludeFromLoadBalancers),
        );
        node = r.node;
        cordoned = true;
        log.info("kubernetes node cordoned", {
          node: node.name,
          eventId: c.eventId,
          changed: r.patched,
          gentle: c.gentle || undefined,
        });
      }
      const pods = await api.podsOnNode(node.name);
      const now = clock.now();
      const v = verdict(node.name, pods, progress, now, deadlineMs);
      if (v.done) return { result: "succeeded", detail: v.detail, output: "" };
      if (v.failed) return { result: "failed", detail: v.failed, output: "" };
      const due = dueEvictions(pods, progress, now, graceDeadlineMs);
      const answers = await Promise.all(
        due.map(async (e) => ({ e, answer: await api.evict(e.pod, e.graceSeconds) })),
      );
      for (const { e, answer } of answers) {
        const before = progress[e.pod.uid];
        progress = afterEviction(progress, e.pod, answer, clock.now());
        logEviction(c, e.pod.namespace, e.pod.name, answer, before === undefined);
      }
      lastError = undefined;
    } catch (e) {
      // The API server unreachable or refusing a read: tried again until the deadline.
      const text = errorText(e);
      if (text !== lastError)
        log.warn("kubernetes drain: API call failed; retrying", { error: text });
      lastError = text;
      if (clock.now() >= deadlineMs)
        return {
          result: "failed",
          detail: `Kubernetes API failing at the deadline: ${text}`,
          output: "",
        };
    }
    await delay(Math.max(0, Math.min(c.pollMs, deadlineMs - clock.now())), signal);
  }
}

function logEviction(
  c: KubernetesHookContext,
  namespace: string,
  name: string,
  answer: EvictionAnswer,
  first: boolean,
): void {
  const pod = `${namespace}/${name}`;
  if (answer.kind === "evicted")
    c.log.info("pod evicted", { pod, gracePeriodSeconds: answer.graceSeconds, eventId: c.eventId });
  else if (answer.kind === "gone") c.log.debug("pod already gone", { pod });
  // A budget refusal repeats until a replacement is ready elsewhere: said once, then at debug.
  else
    (first ? c.log.info : c.log.debug)("eviction refused; retrying", {
      pod,
      code: answer.refusal.code,
      reason: answer.refusal.reason,
      message: answer.refusal.message,
    });
}
