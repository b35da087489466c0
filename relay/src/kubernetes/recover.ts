import { delay } from "@quiesce/protocol";
import type { HookOutcome } from "../hooks/outcome";
import { errorText } from "../log";
import { uncordonPatch } from "./marks";
import { type KubernetesHookContext, patchDecided } from "./node";

/**
 * The recover: forget the event on the node and, once no event of Quiesce's is left, undo what
 * Quiesce did (uncordon if it cordoned, remove the label it added). It runs only after the event
 * left the document (the relay's recover timing), and never uncordons a node Quiesce did not.
 */
export async function recoverNode(c: KubernetesHookContext): Promise<HookOutcome> {
  let lastError = "";
  for (;;) {
    if (c.signal.aborted)
      return { result: "interrupted", detail: "relay stopped while the hook ran", output: "" };
    try {
      const found = await c.finder.find();
      if (!found.ok) return { result: "failed", detail: found.error, output: "" };
      const node = found.value;
      if (!node)
        return {
          result: "succeeded",
          detail: "no Kubernetes node has this VM's spec.providerID: nothing to undo",
          output: "",
        };
      const r = await patchDecided(c.api, node, (n) => uncordonPatch(n, c.eventId));
      const detail = !r.patched
        ? `node ${node.name} left as it is (Quiesce did not cordon it for this event)`
        : r.node.unschedulable
          ? `node ${node.name} stays cordoned (another event, or not cordoned by Quiesce)`
          : `node ${node.name} uncordoned`;
      c.log.info("kubernetes node recovered", { node: node.name, eventId: c.eventId, detail });
      return { result: "succeeded", detail, output: "" };
    } catch (e) {
      const text = errorText(e);
      if (text !== lastError)
        c.log.warn("kubernetes recover: API call failed; retrying", { error: text });
      lastError = text;
      if (c.clock.now() >= c.deadlineMs)
        return {
          result: "failed",
          detail: `Kubernetes API failing at the deadline: ${text}`,
          output: "",
        };
    }
    await delay(Math.max(0, Math.min(c.pollMs * 2, c.deadlineMs - c.clock.now())), c.signal);
  }
}
