import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import { scheduleProblem } from "./timerSchedule";

/**
 * Schemas of the coordinator's setting values that need more than a line (config.ts names the
 * settings and puts these together): JSON settings, the shared relay identities and the sweep's
 * schedule. No setting is named here; an error gets the setting's name from where it is used.
 */

/** A setting holding JSON text: parsed here, then checked by `schema` (its issues keep their paths). */
export const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      const parsed = parseJsonWith(z.unknown(), text);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    })
    .pipe(schema);

/**
 * `{"<identity resource id>": ["<scale set resource id>", ...]}`, keyed in lower case (ARM ids
 * are case-insensitive) once parsed.
 */
export const SharedRelayIdentities = json(
  z.record(
    z
      .string()
      .regex(
        /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/[^/]+$/i,
        "a user-assigned identity's resource id",
      ),
    z
      .array(
        z
          .string()
          .regex(
            /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/[^/]+$/i,
            "a scale set's resource id",
          ),
      )
      .min(1),
  ),
).transform((r) => new Map(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])));

/** The sweep timer's schedule, refused (naming the field at fault) when the host could not read it. */
export const TimerSchedule = z.string().superRefine((s, ctx) => {
  const problem = scheduleProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
