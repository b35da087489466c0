import { describe, expect, it } from "vitest";
import { parseArgs } from "./args";

describe("quiesce CLI arguments", () => {
  const env = { QUIESCE_OPERATOR_KEY: "k".repeat(20) };

  it("defaults to status against the local coordinator", () => {
    const r = parseArgs([], env);
    expect(r.ok && r.value).toMatchObject({
      command: "status",
      url: "http://127.0.0.1:7071",
      json: false,
    });
  });

  it("requires a reason for operator actions, for the audit trail", () => {
    const r = parseArgs(["hold", "E1"], env);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/needs --reason/) });
    const ok = parseArgs(["hold", "E1", "--reason", "release freeze", "--ttl-minutes", "30"], env);
    expect(ok.ok && ok.value).toMatchObject({ command: "hold", target: "E1", ttlMinutes: 30 });
  });

  it("refuses unknown commands, unknown options and a missing credential with clear errors", () => {
    expect(parseArgs(["explode"], env).ok).toBe(false);
    expect(parseArgs(["status", "--colour", "x"], env)).toEqual({
      ok: false,
      error: expect.stringMatching(/unknown option --colour/),
    });
    expect(parseArgs(["status"], {})).toEqual({
      ok: false,
      error: expect.stringMatching(/no credential/),
    });
  });

  it("sends the operator's credential over plain http only to a loopback coordinator", () => {
    for (const url of ["http://quiesce.example.com", "http://10.0.0.4:7071"]) {
      expect(parseArgs(["status", "--url", url], env)).toEqual({
        ok: false,
        error: expect.stringMatching(/url: must be https \(plain http only to a loopback address/),
      });
      expect(parseArgs(["status"], { ...env, QUIESCE_URL: url }).ok).toBe(false);
    }
    for (const url of ["http://localhost:7071", "http://[::1]:7071", "https://q.example.com"])
      expect(parseArgs(["status", "--url", url], env).ok).toBe(true);
  });

  it("answers --help and --version (-h, -v), before any other complaint", () => {
    expect(parseArgs(["--help"], {})).toEqual({ ok: true, value: { command: "help" } });
    expect(parseArgs(["status", "--colour", "x", "-h"], {})).toEqual({
      ok: true,
      value: { command: "help" },
    });
    for (const flag of ["--version", "-v"])
      expect(parseArgs(["status", "--colour", flag], {})).toEqual({
        ok: true,
        value: { command: "version" },
      });
  });

  it("words a usage error in one line (main adds the usage line)", () => {
    expect(parseArgs(["explode"], env)).toEqual({ ok: false, error: "unknown command explode" });
    expect(parseArgs(["--colour"], env)).toEqual({ ok: false, error: "unknown option --colour" });
  });

  it("refuses a URL holding a user name or password: fetch would quote it whole", () => {
    expect(parseArgs(["status", "--url", "https://op:s3cret@q.example.com"], env)).toEqual({
      ok: false,
      error: "url: must not hold a user name or password (pass the credential with --key)",
    });
  });

  it("says which option is missing its value; a value may start with one dash", () => {
    expect(parseArgs(["hold", "E1", "--reason"], env)).toEqual({
      ok: false,
      error: "--reason needs a value",
    });
    expect(parseArgs(["hold", "E1", "--reason", "--json"], env)).toEqual({
      ok: false,
      error: "--reason needs a value",
    });
    const r = parseArgs(["hold", "E1", "--reason", "-1 rollout"], env);
    expect(r.ok && r.value).toMatchObject({ reason: "-1 rollout" });
  });

  it("takes status filters and paging, checked by the API's own query schema", () => {
    const r = parseArgs(
      [
        "status",
        "--cluster",
        "web",
        "--phase",
        "Draining,Ready",
        "--state",
        "all",
        "--limit",
        "50",
        "--all",
      ],
      env,
    );
    expect(r.ok && r.value).toMatchObject({
      cluster: "web",
      phases: ["Draining", "Ready"],
      state: "all",
      limit: 50,
      all: true,
    });
    expect(parseArgs(["status", "--limit", "501"], env)).toEqual({
      ok: false,
      error: expect.stringMatching(/^--limit: .*500/),
    });
    expect(parseArgs(["status", "--phase", "Draining,Nope"], env)).toEqual({
      ok: false,
      error: expect.stringMatching(/^--phase: /),
    });
    expect(parseArgs(["cluster", "web", "--limit", "2000"], env).ok).toBe(true);
    expect(parseArgs(["cluster", "web", "--state", "ended"], env)).toEqual({
      ok: false,
      error: "--state does not apply to cluster",
    });
  });

  it("takes --replace for hold and force-approve only: replacing another's override is explicit", () => {
    const force = parseArgs(["force-approve", "E1", "--reason", "urgent", "--replace"], env);
    expect(force.ok && force.value).toMatchObject({ command: "force-approve", replace: true });
    const hold = parseArgs(["hold", "E1", "--reason", "freeze"], env);
    expect(hold.ok && hold.value).toMatchObject({ command: "hold", replace: false });
    for (const command of ["release", "force-gate", "status"])
      expect(parseArgs([command, "E1", "--reason", "r", "--gate", "g", "--replace"], env)).toEqual({
        ok: false,
        error: `--replace applies to hold and force-approve, not ${command}`,
      });
    expect(parseArgs(["hold", "E1", "--reason", "r", "--replace=yes"], env)).toEqual({
      ok: false,
      error: expect.stringMatching(/unknown option --replace=yes/),
    });
  });
});
