import type { Result } from "@quiesce/protocol";
import type { z } from "zod";
import type { Outcome, Refusal } from "./types";

/** A control call's failure, as both the HTTP routes (status + JSON) and the in-process API (throw) report it. */
export interface ControlFailure extends Refusal {
  readonly issues?: ReadonlyArray<{ path: string; message: string }>;
}
export type ControlResult<T> = Result<T, ControlFailure>;

export const refused = (status: Refusal["status"], message: string): ControlResult<never> => ({
  ok: false,
  error: { status, message },
});

/** A control input through its command's schema: 400 naming each issue. */
export function parseCommand<S extends z.ZodType>(
  schema: S,
  input: unknown,
): ControlResult<z.infer<S>> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    error: {
      status: 400,
      message: "invalid request",
      issues: r.error.issues.map((i) => ({
        path: i.path.join(".") || "(body)",
        message: i.message,
      })),
    },
  };
}

/** A model transition as the control API answers it: the value, or the refusal. */
export const lift = <T>(o: Outcome<T>): ControlResult<T> =>
  o.ok ? { ok: true, value: o.value.value } : o;

/** A thrown control failure of the in-process API (the HTTP API answers the same as status + JSON). */
export class FabricControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues?: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(
      issues?.length
        ? `${message}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`
        : message,
    );
    this.name = "FabricControlError";
  }
}

/** The in-process API's way to report a control failure: throw it. */
export function unwrap<T>(r: ControlResult<T>): T {
  if (r.ok) return r.value;
  throw new FabricControlError(r.error.status, r.error.message, r.error.issues);
}
