import type { Policies } from "@quiesce/protocol/policy";
import { z } from "zod";

/**
 * The subscriptions one deployment serves (docs/control-plane.md, "Many subscriptions"):
 * `QUIESCE_SUBSCRIPTIONS`, comma-separated subscription ids, which infra/ sets to its own and every
 * other subscription named in `controlPlaneSubscriptions`. Unset: no list, today's behaviour (the
 * Resource Graph backstop queries the subscriptions of the clusters' VMs). Set: the backstop also
 * queries these (a subscription whose VMs no relay reported yet, an agentless cluster's), and the
 * settings that name subscriptions must stay within it. Kept apart from config.ts, which it extends.
 */

/** A subscription id: a GUID, 8-4-4-4-12 hexadecimal digits. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXAMPLE = "00000000-0000-0000-0000-000000000000";

/** Comma-separated subscription ids: each a GUID, none twice (compared without case), at most 1,000. */
export const SubscriptionList = z
  .string()
  .default("")
  .transform((text, ctx) => {
    const ids = text
      .split(",")
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      const at = `entry ${i + 1} ("${id.slice(0, 80)}")`;
      if (!GUID.test(id))
        ctx.addIssue({
          code: "custom",
          message: `${at} is not a subscription id: expected a GUID such as ${EXAMPLE}`,
        });
      else if (seen.has(id.toLowerCase()))
        ctx.addIssue({ code: "custom", message: `${at} is listed twice` });
      seen.add(id.toLowerCase());
    });
    if (ids.length > 1000)
      ctx.addIssue({ code: "custom", message: `${ids.length} subscriptions: at most 1,000` });
    return ids.map((id) => id.toLowerCase());
  });

export const subscriptionSettings = {
  QUIESCE_SUBSCRIPTIONS: SubscriptionList,
};

interface SubscriptionSettings {
  QUIESCE_CONTROL_PLANE: boolean;
  QUIESCE_SUBSCRIPTIONS: readonly string[];
  QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS: readonly string[];
}

/** The subscription an ARM id names, lower case; undefined for anything else. */
const subscriptionOf = (id: string) =>
  /^\/subscriptions\/([^/]+)\//i.exec(id.trim())?.[1]?.toLowerCase();

/**
 * What is wrong with the list against the other settings, one message each: it needs the control
 * plane (it names where the coordinator acts through ARM), and what the backstop queries and what
 * clusters claim (`azureResources`) must be in it.
 */
export function subscriptionProblems(
  s: SubscriptionSettings,
  policies: Iterable<[string, Policies["default"]]>,
): string[] {
  const served = new Set(s.QUIESCE_SUBSCRIPTIONS);
  if (served.size === 0) return [];
  const problems: string[] = [];
  if (!s.QUIESCE_CONTROL_PLANE)
    problems.push(
      "QUIESCE_SUBSCRIPTIONS names where the coordinator acts through Azure Resource Manager: set QUIESCE_CONTROL_PLANE=true too, or leave it unset",
    );
  for (const id of s.QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS)
    if (!served.has(id.toLowerCase()))
      problems.push(
        `QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS names ${id}, which QUIESCE_SUBSCRIPTIONS does not list: add it there (and grant the coordinator its roles, docs/control-plane.md "Many subscriptions")`,
      );
  for (const [name, p] of policies)
    for (const id of p.azureResources) {
      const sub = subscriptionOf(id);
      if (sub && !served.has(sub))
        problems.push(
          `${name} names ${id} in azureResources, in subscription ${sub}, which QUIESCE_SUBSCRIPTIONS does not list: add it there (and grant the coordinator its roles, docs/control-plane.md "Many subscriptions")`,
        );
    }
  return problems;
}
