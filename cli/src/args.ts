import { z } from "zod";

/** `quiesce` arguments and environment, parsed once; errors name what is wrong. */

export const USAGE = `quiesce: what every Scheduled Event is waiting for, and operator actions.

usage:
  quiesce status                         every cluster: live relays, active events and what they wait for
  quiesce cluster NAME                   one cluster
  quiesce event EVENT_ID [--cluster C]   one event: phase, blockers, approval, timeline
  quiesce hold EVENT_ID --reason TEXT [--ttl-minutes N] [--cluster C]
  quiesce release EVENT_ID --reason TEXT [--cluster C]
  quiesce force-approve EVENT_ID --reason TEXT [--ttl-minutes N] [--cluster C]
options:
  --url URL     coordinator base URL (or QUIESCE_URL; default http://127.0.0.1:7071)
  --key KEY     operator key or Entra access token (or QUIESCE_OPERATOR_KEY / QUIESCE_TOKEN)
  --json        print the API's JSON instead of text`;

const Command = z.enum(["status", "cluster", "event", "hold", "release", "force-approve"]);

export const CliArgs = z.object({
  command: Command,
  target: z.string().min(1).optional(),
  url: z.url(),
  key: z.string().min(1, "no credential: pass --key or set QUIESCE_OPERATOR_KEY / QUIESCE_TOKEN"),
  cluster: z.string().min(1).optional(),
  reason: z.string().min(1).optional(),
  ttlMinutes: z.coerce.number().int().min(1).max(1440).optional(),
  json: z.boolean(),
});
export type CliArgs = z.infer<typeof CliArgs>;

export type ParsedArgs = { ok: true; args: CliArgs } | { ok: false; error: string; help?: boolean };

export function parseArgs(argv: string[], env: Record<string, string | undefined>): ParsedArgs {
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return { ok: false, error: USAGE, help: true };
    if (a === "--json") flags.json = true;
    else if (a.startsWith("--")) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--"))
        return { ok: false, error: `${a} needs a value` };
      flags[a.slice(2)] = value;
      i++;
    } else positional.push(a);
  }
  const known = new Set(["json", "url", "key", "cluster", "reason", "ttl-minutes"]);
  const unknown = Object.keys(flags).filter((k) => !known.has(k));
  if (unknown.length > 0) return { ok: false, error: `unknown option --${unknown[0]}\n\n${USAGE}` };
  const parsed = CliArgs.safeParse({
    command: positional[0] ?? "status",
    target: positional[1],
    url: flags.url ?? env.QUIESCE_URL ?? "http://127.0.0.1:7071",
    key: flags.key ?? env.QUIESCE_OPERATOR_KEY ?? env.QUIESCE_TOKEN ?? "",
    cluster: flags.cluster,
    reason: flags.reason,
    ttlMinutes: flags["ttl-minutes"],
    json: flags.json === true,
  });
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues
        .map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`)
        .join("\n"),
    };
  const a = parsed.data;
  if (a.command !== "status" && !a.target)
    return {
      ok: false,
      error: `${a.command} needs a ${a.command === "cluster" ? "cluster name" : "event id"}`,
    };
  if (["hold", "release", "force-approve"].includes(a.command) && !a.reason)
    return { ok: false, error: `${a.command} needs --reason (it is written to the audit trail)` };
  return { ok: true, args: a };
}
