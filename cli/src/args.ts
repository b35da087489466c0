import { ClusterQuery, type EventState, type Phase, StatusQuery } from "@quiesce/shared";
import { z } from "zod";

/** `quiesce` arguments and environment, parsed once; errors name what is wrong. */

export const USAGE = `quiesce: what every Scheduled Event is waiting for, and operator actions.

usage:
  quiesce status [--cluster C] [--phase P1,P2] [--state active|ended|all] [--limit N] [--all]
                                         cluster summaries and events with what they wait for
                                         (one page of --limit events, default 100; --all follows every page)
  quiesce cluster NAME [--limit N] [--all]
                                         one cluster: groups, members (a page, default 500), events
  quiesce event EVENT_ID [--cluster C]   one event: phase, blockers, approval, timeline
  quiesce hold EVENT_ID --reason TEXT [--ttl-minutes N] [--cluster C]
  quiesce release EVENT_ID --reason TEXT [--cluster C]
  quiesce force-approve EVENT_ID --reason TEXT [--ttl-minutes N] [--cluster C]
options:
  --url URL     coordinator base URL (or QUIESCE_URL; default http://127.0.0.1:7071)
  --key KEY     operator key or Entra access token (or QUIESCE_OPERATOR_KEY / QUIESCE_TOKEN)
  --continuation TOKEN  start from a page's continuation (status, cluster)
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
  all: z.boolean(),
});

/** Paging and filters, checked with the API's own query schemas (see parsePaging). */
export interface Paging {
  phases?: Phase[];
  state?: EventState;
  limit?: number;
  continuation?: string;
}
export type CliArgs = z.infer<typeof CliArgs> & Paging;

export type ParsedArgs = { ok: true; args: CliArgs } | { ok: false; error: string; help?: boolean };

export function parseArgs(argv: string[], env: Record<string, string | undefined>): ParsedArgs {
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return { ok: false, error: USAGE, help: true };
    if (a === "--json") flags.json = true;
    else if (a === "--all") flags.all = true;
    else if (a.startsWith("--")) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--"))
        return { ok: false, error: `${a} needs a value` };
      flags[a.slice(2)] = value;
      i++;
    } else positional.push(a);
  }
  const known = new Set([
    ...["json", "all", "url", "key", "cluster", "reason", "ttl-minutes"],
    ...["phase", "state", "limit", "continuation"],
  ]);
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
    all: flags.all === true,
  });
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues
        .map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`)
        .join("\n"),
    };
  const paging = parsePaging(parsed.data.command, flags);
  if (!paging.ok) return paging;
  const a: CliArgs = { ...parsed.data, ...paging.value };
  if (a.command !== "status" && !a.target)
    return {
      ok: false,
      error: `${a.command} needs a ${a.command === "cluster" ? "cluster name" : "event id"}`,
    };
  if (["hold", "release", "force-approve"].includes(a.command) && !a.reason)
    return { ok: false, error: `${a.command} needs --reason (it is written to the audit trail)` };
  return { ok: true, args: a };
}

const text = (v: string | boolean | undefined) => (typeof v === "string" ? v : undefined);

/** --phase, --state, --limit, --continuation: the API's query schemas decide what is valid. */
function parsePaging(
  command: string,
  flags: Record<string, string | boolean>,
): { ok: true; value: Paging } | { ok: false; error: string } {
  const raw = {
    phase: text(flags.phase),
    state: text(flags.state),
    limit: text(flags.limit),
    continuation: text(flags.continuation),
  };
  const given = Object.entries(raw).filter(([, v]) => v !== undefined);
  const allowed =
    command === "status"
      ? ["phase", "state", "limit", "continuation"]
      : command === "cluster"
        ? ["limit", "continuation"]
        : [];
  const stray = given.find(([k]) => !allowed.includes(k));
  if (stray) return { ok: false, error: `--${stray[0]} does not apply to ${command}` };
  if (given.length === 0) return { ok: true, value: {} };
  const schema = command === "status" ? StatusQuery : ClusterQuery;
  const r = schema.safeParse(Object.fromEntries(given));
  if (!r.success) {
    const i = r.error.issues[0];
    return {
      ok: false,
      error: `--${String(i?.path[0] ?? "option")}: ${i?.message ?? "bad value"}`,
    };
  }
  const v = r.data as { phase?: Phase[]; state?: EventState; limit: number; continuation?: string };
  return {
    ok: true,
    value: {
      ...(v.phase ? { phases: v.phase } : {}),
      ...(raw.state ? { state: v.state as EventState } : {}),
      ...(raw.limit ? { limit: v.limit } : {}),
      ...(v.continuation ? { continuation: v.continuation } : {}),
    },
  };
}
