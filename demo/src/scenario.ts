import { readFileSync } from "node:fs";
import { InjectFault, ScheduleEvent, Topology } from "@quiesce/fabric-simulator";
import { parseJsonWith, parseWith, type Result } from "@quiesce/protocol";
import { z } from "zod";
import { placeholderProblems } from "./policyTemplate";

/**
 * A scenario: a topology, a policy, a time scale and timed steps played against the fabric
 * simulator. Times (`at`) are simulated seconds from the start; events are named so later steps
 * (and the summary) can refer to them.
 */

const StepName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, "1-64 letters, digits, space . _ -");
/** A health endpoint's or an alert rule's name: one URL path segment. */
const GateEndpoint = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1-64 letters, digits, . _ -");
const at = z
  .number()
  .min(0)
  .max(30 * 86_400);

/**
 * What a step stands on, beyond its time (premises.ts): the step is played at `at` once this
 * holds, waited for up to the scenario's `premiseTimeoutSeconds`; when it does not hold by then
 * (or can no longer: the event went on without it) the step is played anyway and the summary
 * says the story's premise was not met.
 * `drained`: every VM the named event names has reported its drain finished.
 * `approved`: the coordinator approved the named event (relays lost come back only after).
 */
export const StepPremise = z.union([
  z.strictObject({ drained: StepName }),
  z.strictObject({ approved: StepName }),
]);
export type StepPremise = z.infer<typeof StepPremise>;
const when = StepPremise.optional();

/** What a story must come to, checked in the summary (a story that did not is not hidden). */
export const StoryExpectation = z.strictObject({
  /** Who approved it at the fabric: "control-plane" (through ARM) or a VM's name. */
  approvedBy: z.string().min(1).max(64),
});

export const ScenarioStep = z.discriminatedUnion("action", [
  z.strictObject({
    at,
    action: z.literal("schedule"),
    name: StepName,
    event: ScheduleEvent.omit({ eventId: true }),
    expect: StoryExpectation.optional(),
  }),
  z.strictObject({ at, action: z.literal("cancel"), name: StepName }),
  z.strictObject({ at, action: z.literal("startNow"), name: StepName }),
  z.strictObject({
    at,
    action: z.literal("changeResources"),
    name: StepName,
    resources: z.array(z.string()).min(1),
  }),
  z.strictObject({ at, action: z.literal("fault"), fault: InjectFault }),
  z.strictObject({ at, action: z.literal("stopRelay"), vm: z.string().min(1), when }),
  z.strictObject({ at, action: z.literal("startRelay"), vm: z.string().min(1), when }),
  /**
   * An operator's hold (no approval until released) and its release, through the status API.
   * `whileDraining`: the story has the hold land while the event's VMs drain, so the demo hooks
   * do not finish those drains until the hold is in place (drainHolds.ts).
   */
  z.strictObject({
    at,
    action: z.literal("hold"),
    name: StepName,
    reason: z.string().min(1).max(200).optional(),
    whileDraining: z.boolean().optional(),
  }),
  z.strictObject({ at, action: z.literal("release"), name: StepName, when }),
  /** What the fabric's health endpoint `endpoint` answers (an HTTP gate probes it). */
  z.strictObject({
    at,
    action: z.literal("health"),
    endpoint: GateEndpoint,
    status: z.number().int().min(100).max(599),
  }),
  /** An Azure Monitor alert of this rule of the topology fires / is resolved (an alert-rule gate reads it). */
  z.strictObject({ at, action: z.literal("fireAlert"), rule: GateEndpoint }),
  z.strictObject({ at, action: z.literal("resolveAlert"), rule: GateEndpoint }),
]);
export type ScenarioStep = z.infer<typeof ScenarioStep>;

export const Scenario = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  /** Simulated seconds per real second. */
  timeScale: z.number().min(0.1).max(1000).default(30),
  cluster: z.string().default("demo"),
  /** The fabric's groups; the default cluster (two availability sets of 4, a placement group of 6) when absent. */
  topology: Topology.optional(),
  /**
   * The coordinator's QUIESCE_POLICY ({"default": {...}, "clusters": {...}}); strings may name
   * the fabric's `{{fabricUrl}}` and `{{resourceGroupId}}` (policyTemplate.ts).
   */
  policy: z.record(z.string(), z.unknown()).optional(),
  /**
   * Let the coordinator act through the fabric's loopback Azure Resource Manager
   * (QUIESCE_CONTROL_PLANE): approve events no relay can, load-balancer drain, alert-rule gates.
   */
  controlPlane: z.boolean().default(false),
  /**
   * Events published off the VM (with `controlPlane`): the fabric's Event Grid publisher
   * delivers to the coordinator's webhook, and its Resource Graph answers the backstop.
   */
  controlPlaneEvents: z.boolean().default(false),
  /**
   * An appliance drain service on loopback for the `agentless` policy's hooks (`{{hookServiceUrl}}`
   * in the policy): real seconds its drain and recover take.
   */
  hookService: z
    .strictObject({
      drainSeconds: z.number().min(0).max(600),
      recoverSeconds: z.number().min(0).max(600),
    })
    .optional(),
  /** Simulated seconds an event stays Started before Azure removes it (at least its duration). */
  minStartedSeconds: z.number().min(0).max(86_400).default(90),
  /** Drain hook duration in real seconds (the demo hooks sleep this long). */
  drainSeconds: z.number().min(0).max(600).default(3),
  recoverSeconds: z.number().min(0).max(600).default(1),
  /** Give up (and print the summary) after this many real seconds. */
  timeoutSeconds: z.number().min(5).max(3600).default(240),
  /**
   * Real seconds a step waits past its time for its premise (Quiesce has seen the event it acts
   * on; its `when`) before it is played anyway and the story reported as not told.
   */
  premiseTimeoutSeconds: z.number().min(1).max(600).default(30),
  steps: z.array(ScenarioStep).min(1).max(500),
});
export type Scenario = z.infer<typeof Scenario>;

export class ScenarioError extends Error {
  override name = "ScenarioError";
}

export function parseScenario(json: unknown, source: string): Scenario {
  return checked(parseWith(Scenario, json), source);
}

/** Steps may only name events scheduled before them, and each name is given once. */
function checked(parsed: Result<Scenario>, source: string): Scenario {
  if (!parsed.ok) throw new ScenarioError(`${source}: ${parsed.error}`);
  const s = parsed.value;
  const placeholders = placeholderProblems(s.policy ?? {});
  if (placeholders.length > 0)
    throw new ScenarioError(`${source}: policy: ${placeholders.join("; ")}`);
  const scheduled = new Set<string>();
  for (const step of [...s.steps].sort((a, b) => a.at - b.at)) {
    if (step.action === "schedule") {
      if (scheduled.has(step.name))
        throw new ScenarioError(`${source}: event name "${step.name}" is used twice`);
      scheduled.add(step.name);
    } else if ("name" in step && !scheduled.has(step.name)) {
      throw new ScenarioError(
        `${source}: step "${step.action}" at ${step.at} s names "${step.name}", not scheduled before it`,
      );
    }
    const premise = "when" in step && step.when ? premiseOn(step.when) : null;
    if (premise && !scheduled.has(premise.name))
      throw new ScenarioError(
        `${source}: step "${step.action}" at ${step.at} s waits for "${premise.name}" ${premise.kind}, not scheduled before it`,
      );
  }
  return s;
}

/** The event a premise is on, and what it waits for of it. */
export function premiseOn(p: StepPremise): { name: string; kind: "drained" | "approved" } {
  return "drained" in p
    ? { name: p.drained, kind: "drained" }
    : { name: p.approved, kind: "approved" };
}

export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ScenarioError(`cannot read scenario ${file}: ${(e as Error).message}`);
  }
  return checked(parseJsonWith(Scenario, text), file);
}
