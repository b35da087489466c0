import type { EventDetail } from "@quiesce/cli";
import type { ScenarioStep } from "./scenario";

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

/** Null when the step's premises hold now; else what it waits for and what is seen instead. */
export async function unmetPremise(
  s: ScenarioStep,
  detail: Detail,
): Promise<{ premise: string; seen: string } | null> {
  if ("name" in s && s.action !== "schedule" && !(await detail(s.name)))
    return { premise: `Quiesce has seen "${s.name}"`, seen: "not reported by any relay yet" };
  const when = "when" in s ? s.when : undefined;
  if (!when) return null;
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

/** A premise not met by its deadline, as the summary lists it. */
export function premiseNotMet(
  s: ScenarioStep,
  unmet: { premise: string; seen: string },
  waitedSeconds: number,
): StoryProblem {
  const event = "name" in s ? s.name : "when" in s && s.when ? s.when.drained : null;
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
