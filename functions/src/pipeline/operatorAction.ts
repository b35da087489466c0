import { type OperatorAction, overrideReplaced, type ReplacedOverride } from "@quiesce/core";
import { runRound } from "../rounds/runner";
import type { PipelineDeps } from "./deps";

/**
 * An operator's hold, release or force-approve of one event: one round (rounds/runner.ts), with
 * an audit row naming who and why besides the transition the core records. Throws the core's
 * OperatorActionError for an event unknown or ended, for a hold over another operator's
 * force-approve (or the reverse) without `replace`, or for anything but a release of an advisory
 * event; a refused action writes nothing, its audit row included. Answers with the override it replaced or
 * removed, as the round that landed read it (null: none).
 */
export async function runOperatorAction(
  deps: PipelineDeps,
  cluster: string,
  key: string,
  action: OperatorAction,
): Promise<{ replaced: ReplacedOverride | null }> {
  const outcome = await runRound(
    deps,
    cluster,
    { kind: "operator", eventKey: key, action },
    {
      policy: deps.policies.for(cluster),
      audit: {
        eventKey: key,
        at: deps.clock.now(),
        by: action.by,
        action: action.kind,
        reason: action.reason,
        ...(action.kind === "release" ? {} : { ttlSeconds: action.ttlSeconds }),
      },
    },
  );
  const before = outcome.before.events[key];
  return { replaced: before ? overrideReplaced(before, action, outcome.now) : null };
}
