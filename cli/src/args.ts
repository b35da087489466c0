import { parseArgs as parseArgv } from "node:util";
import { argProblem, HttpsOrLoopbackUrl, type Result } from "@quiesce/protocol";
import { ClusterQuery, type EventState, type Phase, StatusQuery } from "@quiesce/protocol/status";
import { z } from "zod";

/** `quiesce` arguments and environment, parsed once; errors name what is wrong. */

export const USAGE = `quiesce: what every Scheduled Event is waiting for, and operator actions.

usage: quiesce [COMMAND] [options]          (the command defaults to status)
  quiesce status [--cluster C] [--phase P1,P2] [--state active|ended|all] [--limit N] [--all]
                                         cluster summaries and events with what they wait for
                                         (one page of --limit events, default 100; --all follows every page)
  quiesce cluster NAME [--limit N] [--all]
                                         one cluster: groups, members (a page, default 500), events
  quiesce event EVENT_ID [--cluster C]   one event: phase, blockers, approval, timeline
  quiesce hold EVENT_ID --reason TEXT [--ttl-minutes N] [--cluster C] [--replace]
  quiesce release EVENT_ID --reason TEXT [--cluster C]
  quiesce force-approve EVENT_ID --reason TEXT [--ttl-minutes N] [--cluster C] [--replace]
                                         a hold over another's force-approve (or the reverse)
                                         is refused unless --replace; the answer names what
                                         it replaced
  quiesce force-gate EVENT_ID --gate NAME --reason TEXT [--ttl-minutes N] [--cluster C]
                                         approve past one failing safety gate (audited)
options:
  --url URL     coordinator base URL (or QUIESCE_URL; default http://127.0.0.1:7071);
                https, or http only to a loopback address (the key is sent to it)
  --key KEY     operator key or Entra access token (or QUIESCE_OPERATOR_KEY / QUIESCE_TOKEN)
  --continuation TOKEN  start from a page's continuation (status, cluster)
  --json        print the API's JSON instead of text
  -h, --help    print this help and exit
  -v, --version print the version and exit
output: the answer (text, or JSON with --json) on stdout, nothing else; errors on stderr
exit status:
  0  done
  1  the coordinator could not be reached, refused the request, or answered unreadably
  2  usage: an unknown command or option, a missing or invalid argument, no credential`;

/** What follows every usage error on stderr: the shape of a call, and where to read more. */
export const USAGE_LINE = `usage: quiesce [status|cluster|event|hold|release|force-approve|force-gate] [ARG] [options]
see quiesce --help for the options and exit codes`;

/** Where the credential comes from, for the messages that say it is missing or refused. */
export const CREDENTIAL_SOURCES = "--key, QUIESCE_OPERATOR_KEY or QUIESCE_TOKEN";

const common = {
  /** It is sent the operator's key or token: https, or http only to a loopback coordinator. */
  url: HttpsOrLoopbackUrl.refine(
    (u) => !URL.canParse(u) || (new URL(u).username === "" && new URL(u).password === ""),
    // fetch refuses such a URL, quoting it whole in its error: password and all.
    { message: "must not hold a user name or password (pass the credential with --key)" },
  ),
  key: z.string().min(1, `no credential: pass it with ${CREDENTIAL_SOURCES}`),
  json: z.boolean(),
};
const eventId = z.string({ error: "needs an event id" }).min(1);
const OPERATOR_COMMANDS = ["hold", "release", "force-approve"] as const;
const operatorFields = {
  ...common,
  target: eventId,
  reason: z.string({ error: "needs --reason (it is written to the audit trail)" }).min(1),
  ttlMinutes: z.coerce.number().int().min(1).max(1440).optional(),
  cluster: z.string().min(1).optional(),
};

/** One shape per command: the type says what each command has, so nothing downstream casts. */
export const CliArgs = z.discriminatedUnion("command", [
  z.object({
    ...common,
    command: z.literal("status"),
    cluster: z.string().min(1).optional(),
    all: z.boolean(),
  }),
  z.object({
    ...common,
    command: z.literal("cluster"),
    target: z.string({ error: "needs a cluster name" }).min(1),
    all: z.boolean(),
  }),
  z.object({
    ...common,
    command: z.literal("event"),
    target: eventId,
    cluster: z.string().min(1).optional(),
  }),
  z.object({ ...operatorFields, command: z.enum(["hold", "force-approve"]), replace: z.boolean() }),
  z.object({ ...operatorFields, command: z.literal("release") }),
  z.object({
    ...operatorFields,
    command: z.literal("force-gate"),
    gate: z.string({ error: "needs --gate (the name of the gate to force past)" }).min(1),
  }),
]);

/** Paging and filters, checked with the API's own query schemas (see parsePaging). */
export interface Paging {
  phases?: Phase[];
  state?: EventState;
  limit?: number;
  continuation?: string;
}
export type CliArgs = z.infer<typeof CliArgs> & Paging;

/** `--help` and `--version` are no errors: main prints the answer on stdout and exits 0. */
export type InfoRequest = { command: "help" } | { command: "version" };
/** The arguments, or one message saying what is wrong with them (exit 2). */
export type ParsedArgs = Result<CliArgs | InfoRequest>;

const COMMANDS = ["status", "cluster", "event", ...OPERATOR_COMMANDS, "force-gate"];

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  json: { type: "boolean" },
  all: { type: "boolean" },
  url: { type: "string" },
  key: { type: "string" },
  cluster: { type: "string" },
  reason: { type: "string" },
  gate: { type: "string" },
  replace: { type: "boolean" },
  "ttl-minutes": { type: "string" },
  phase: { type: "string" },
  state: { type: "string" },
  limit: { type: "string" },
  continuation: { type: "string" },
} as const;

const text = (v: string | boolean | undefined) => (typeof v === "string" ? v : undefined);

export function parseArgs(argv: string[], env: Record<string, string | undefined>): ParsedArgs {
  const { values, positionals, tokens } = parseArgv({
    args: argv,
    options: OPTIONS,
    strict: false,
    tokens: true,
  });
  // Like --help in most tools, these answer before any complaint about the other arguments.
  if (values.help === true) return { ok: true, value: { command: "help" } };
  if (values.version === true) return { ok: true, value: { command: "version" } };
  const problem = argProblem(tokens, OPTIONS, true);
  if (problem?.kind === "needsValue")
    return { ok: false, error: `${problem.option} needs a value` };
  if (problem) return { ok: false, error: `unknown option ${problem.arg}` };
  const command = positionals[0] ?? "status";
  if (!COMMANDS.includes(command)) return { ok: false, error: `unknown command ${command}` };
  if (values.replace === true && command !== "hold" && command !== "force-approve")
    return { ok: false, error: `--replace applies to hold and force-approve, not ${command}` };
  const parsed = CliArgs.safeParse({
    command,
    target: positionals[1],
    url: text(values.url) ?? env.QUIESCE_URL ?? "http://127.0.0.1:7071",
    key: text(values.key) ?? env.QUIESCE_OPERATOR_KEY ?? env.QUIESCE_TOKEN ?? "",
    cluster: text(values.cluster),
    reason: text(values.reason),
    gate: text(values.gate),
    ttlMinutes: text(values["ttl-minutes"]),
    json: values.json === true,
    all: values.all === true,
    replace: values.replace === true,
  });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const field = first?.path.join(".") ?? "";
    // A missing target or reason reads best as "<command> needs …".
    const message =
      field === "target" || field === "reason" || field === "gate"
        ? `${command} ${first?.message ?? "is incomplete"}`.replace(
            /^(\S+) (\S+) needs/,
            "$1 needs",
          )
        : parsed.error.issues
            .map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`)
            .join("\n");
    return { ok: false, error: message };
  }
  const paging = parsePaging(command, values);
  if (!paging.ok) return paging;
  return { ok: true, value: { ...parsed.data, ...paging.value } };
}

/** --phase, --state, --limit, --continuation: the API's query schemas decide what is valid. */
function parsePaging(
  command: string,
  flags: Record<string, string | boolean | undefined>,
): Result<Paging> {
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
  const flagError = (e: z.ZodError) => {
    const i = e.issues[0];
    return `--${String(i?.path[0] ?? "option")}: ${i?.message ?? "bad value"}`;
  };
  // Only what was given is passed on: the API applies its own defaults.
  if (command === "status") {
    const r = StatusQuery.safeParse(Object.fromEntries(given));
    if (!r.success) return { ok: false, error: flagError(r.error) };
    return {
      ok: true,
      value: {
        ...(r.data.phase ? { phases: r.data.phase } : {}),
        ...(raw.state ? { state: r.data.state } : {}),
        ...(raw.limit ? { limit: r.data.limit } : {}),
        ...(r.data.continuation ? { continuation: r.data.continuation } : {}),
      },
    };
  }
  const r = ClusterQuery.safeParse(Object.fromEntries(given));
  if (!r.success) return { ok: false, error: flagError(r.error) };
  return {
    ok: true,
    value: {
      ...(raw.limit ? { limit: r.data.limit } : {}),
      ...(r.data.continuation ? { continuation: r.data.continuation } : {}),
    },
  };
}
