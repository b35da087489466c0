import type { z } from "zod";

/** What a parse at the edge returns: the value, or one line saying what is wrong with it. */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };

/**
 * JSON text through a schema, in one step: "not JSON: …" or the schema's complaint naming the
 * field (describeZodError), never an exception.
 */
export function parseJsonWith<S extends z.ZodType>(schema: S, text: string): Result<z.output<S>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  return parseWith(schema, json);
}

/** A value through a schema: the complaint names the field (describeZodError). */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): Result<z.output<S>> {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: describeZodError(parsed.error) };
}

/** One line per problem, each naming the path, e.g. `vm.name: Too small`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length ? i.path.join(".") : "(body)"}: ${i.message}`)
    .join("; ");
}
