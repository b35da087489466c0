import type { EventDetail } from "@quiesce/cli";
import { PHASES } from "@quiesce/protocol/status";
import { premiseOn, type ScenarioStep } from "./scenario";

/**
 * What a scenario step stands on, read from the coordinator's status API: a step that acts on an
 * event needs Quiesce to have seen it (a hold of an unknown event is refused), and a step's
 * `when` names a condition of the story ("relays lost": the relays are stopped only once every
 * VM reported its drain). The player waits for it past the step's time, never a fixed delay,
 * and when it does not come the step is played anyway and the story is reported as not told.
 */

export interface StoryProblem {
  /** The scenario event the problem belongs to; null: the run's (relays never all registered). */
  event: string | null;
  /** "premise not met: …", "step … failed: …" or "expected …, got …". */
  problem: string;
}

/** The status API's view of an event, by scenario name; null when Quiesce has not seen it. */
export type Detail = (name: string) => Promise<EventDetail | null>;

/**
 * What a step waits for and what is seen instead; `final` when it can no longer come (the event
 * went on without it): no use waiting out the deadline.
 */
export interface UnmetPremise {
  premise: string;
  seen: string;
  final?: boolean;
}

/** Null when the step's premises hold now; else what it waits for and what is seen instead. */
export async function unmetPremise(s: ScenarioStep, detail: Detail): Promise<UnmetPremise | null> {
  if ("name" in s && s.action !== "schedule" && !(await detail(s.name)))
    return { premise: `Quiesce has seen "${s.name}"`, seen: "not reported by any relay yet" };
  const when = "when" in s ? s.when : undefined;
  if (!when) return null;
  if ("approved" in when) return unapproved(when.approved, await detail(when.approved));
  const d = await detail(when.drained);
  const premise = `every VM "${when.drained}" names reported its drain`;
  if (!d) return { premise, seen: "Quiesce has not seen the event" };
  const named = new Set(d.resources.map((vm) => vm.toLowerCase()));
  const pending = [...named].flatMap((vm) => {
    const drain = d.readiness.find((r) => r.vm.toLowerCase() === vm)?.drain;
    return drain?.status === "succeeded" ? [] : [`${vm}: ${drain?.status ?? "not started"}`];
  });
  return pending.length === 0 ? null : { premise, seen: pending.join(", ") };
}

/**
 * Phases an event reaches without an approval, after which none can come: Started and every
 * phase after it in the state machine's order (PHASES lists Approving just before Started).
 */
const WITHOUT_APPROVAL: ReadonlySet<string> = new Set(PHASES.slice(PHASES.indexOf("Started")));

function unapproved(name: string, d: EventDetail | null): UnmetPremise | null {
  const premise = `Quiesce approved "${name}"`;
  if (!d) return { premise, seen: "Quiesce has not seen the event" };
  if (d.approval.approvedAt !== null) return null;
  const final = WITHOUT_APPROVAL.has(d.phase);
  return {
    premise,
    seen: `${d.phase}${d.waitingFor ? `, waiting for ${d.waitingFor}` : ""}`,
    ...(final ? { final } : {}),
  };
}

/** A premise not met by its deadline, as the summary lists it. */
export function premiseNotMet(
  s: ScenarioStep,
  unmet: UnmetPremise,
  waitedSeconds: number,
): StoryProblem {
  const event = "name" in s ? s.name : "when" in s && s.when ? premiseOn(s.when).name : null;
  return {
    event,
    problem: `premise not met: ${unmet.premise} (after ${waitedSeconds} s: ${unmet.seen}); ${describeStep(s)} played anyway`,
  };
}

export function describeStep(s: ScenarioStep): string {
  const what = "name" in s ? s.name : "vm" in s ? s.vm : "";
  return `${s.action}${what ? ` ${what}` : ""} at ${s.at} s`;
}

/** The story's expectation against what the fabric saw. */
export function expectationProblems(
  steps: readonly ScenarioStep[],
  approvedBy: (name: string) => string | null,
): StoryProblem[] {
  return steps.flatMap((s) => {
    if (s.action !== "schedule" || !s.expect) return [];
    const got = approvedBy(s.name);
    return got === s.expect.approvedBy
      ? []
      : [
          {
            event: s.name,
            problem: `expected approval by ${s.expect.approvedBy}, ${got ? `approved by ${got}` : "never approved"}`,
          },
        ];
  });
}
