import { likelyMeant } from "@quiesce/protocol";
import { describe, expect, it } from "vitest";
import { COORDINATOR_SETTING_NAMES, loadCoordinatorSettings } from "./config";

/**
 * What an operator reads for a setting they got wrong (issue 31): the setting's name (and the
 * path inside QUIESCE_POLICY), what is wrong in words, the value only when it is no secret and
 * then redacted; a misspelled name refused with the name meant; a schedule the Functions host
 * could not read refused instead of a sweep that never runs.
 */

const base = {
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "relay-key-0123456789",
  QUIESCE_OPERATOR_KEY: "operator-key-0123456789",
  QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
};
const withTableEndpoint = {
  ...base,
  QUIESCE_STORAGE_CONNECTION_STRING: undefined,
  QUIESCE_TABLE_ENDPOINT: "https://acct.table.core.windows.net",
};

/** The message the settings are refused with, or "" when they are accepted. */
function refusal(settings: Record<string, string | undefined>): string {
  try {
    loadCoordinatorSettings(settings);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

describe("a URL setting holding no URL", () => {
  const QUOTED: [string, Record<string, string | undefined>, string][] = [
    ["QUIESCE_TABLE_ENDPOINT", withTableEndpoint, "htp:/x"],
    ["QUIESCE_ENTRA_JWKS_URL", base, "htp:/x"],
    ["QUIESCE_GRAPH_URL", base, "htp:/x"],
    ["QUIESCE_STATUS_PAGE_URL", base, "htp:/x"],
    ["QUIESCE_ARM_ENDPOINT", base, "https//management.azure.com"],
    // An audience may be of any scheme (api://app), but not without one.
    ["QUIESCE_ARM_AUDIENCE", base, "management.azure.com"],
  ];
  it.each(QUOTED)("%s is refused by name, quoting the value, in one message", (name, s, bad) => {
    expect(refusal({ ...s, [name]: bad })).toBe(
      `invalid coordinator settings: ${name}: not a valid URL (${JSON.stringify(bad)})`,
    );
    expect(refusal({ ...s, [name]: "not a url" })).not.toContain("Invalid URL");
  });

  it.each(["QUIESCE_TEAMS_WEBHOOK_URL", "QUIESCE_SLACK_WEBHOOK_URL"])(
    "%s, a secret, is refused by name without its value",
    (name) => {
      const secret = "htps://prod-01.example.com/workflows/0123456789abcdef/triggers";
      expect(refusal({ ...base, [name]: secret })).toBe(
        `invalid coordinator settings: ${name}: not a valid URL (the value is a secret: not shown)`,
      );
    },
  );

  it("that is an unresolved Key Vault reference is said to be one, not a bad URL", () => {
    const ref = "@Microsoft.KeyVault(VaultName=kv-quiesce;SecretName=teams-webhook-url)";
    expect(refusal({ ...base, QUIESCE_TEAMS_WEBHOOK_URL: ref })).toBe(
      "invalid coordinator settings: QUIESCE_TEAMS_WEBHOOK_URL: an unresolved Key Vault reference (the app's identity cannot read the secret, or it does not exist)",
    );
  });

  it("quotes a non-secret URL with its query tokens redacted", () => {
    const message = refusal({
      ...base,
      QUIESCE_STATUS_PAGE_URL: "htp://x/ui?code=0123456789abcdef",
    });
    expect(message).toMatch(/QUIESCE_STATUS_PAGE_URL: not a valid URL \("htp:\/\/x\/ui\?code=/);
    expect(message).not.toContain("0123456789abcdef");
  });

  it("in QUIESCE_POLICY names the path to it: a gate's, an agentless hook's", () => {
    const policy = {
      clusters: {
        web: {
          gates: [{ kind: "http", name: "g", url: "htp:/x" }],
          agentless: { enabled: true, drain: { url: "drain/{vmName}" } },
        },
      },
    };
    expect(
      refusal({ ...base, QUIESCE_CONTROL_PLANE: "true", QUIESCE_POLICY: JSON.stringify(policy) }),
    ).toBe(
      'invalid coordinator settings: QUIESCE_POLICY: clusters.web.gates[0].url: not a valid URL ("htp:/x"); QUIESCE_POLICY: clusters.web.agentless.drain.url: not a valid URL ("drain/{vmName}")',
    );
  });
});

describe("a misspelled setting name", () => {
  it("is refused with the name meant, rather than leaving that setting at its default", () => {
    expect(refusal({ ...base, QUIESCE_CONTROL_PLANE_EVENT: "true" })).toBe(
      "invalid coordinator settings: QUIESCE_CONTROL_PLANE_EVENT: not a setting; did you mean QUIESCE_CONTROL_PLANE_EVENTS?",
    );
    expect(refusal({ ...base, quiesce_debug: "true" })).toMatch(
      /quiesce_debug: not a setting; did you mean QUIESCE_DEBUG\?/,
    );
  });

  it("is listed with every other problem of the settings", () => {
    expect(refusal({ ...base, QUIESCE_SLACK_WEBHOK_URL: "x", QUIESCE_DEBUG: "maybe" })).toMatch(
      /^invalid coordinator settings: QUIESCE_SLACK_WEBHOK_URL: not a setting; did you mean QUIESCE_SLACK_WEBHOOK_URL\?; QUIESCE_DEBUG: /,
    );
  });

  it("is not another program's QUIESCE_ name: those are near no setting of the coordinator", () => {
    // The relay's and the CLI's, and the deployment's azd environment names.
    for (const other of ["QUIESCE_CLUSTER", "QUIESCE_URL", "QUIESCE_STORAGE_ACCOUNT"])
      expect(refusal({ ...base, [other]: "x" })).toBe("");
  });

  it("can never be taken for another real setting: no two are that near each other", () => {
    const near = COORDINATOR_SETTING_NAMES.filter((a) =>
      likelyMeant(
        a,
        COORDINATOR_SETTING_NAMES.filter((b) => b !== a),
      ),
    );
    expect(near).toEqual([]);
  });
});

describe("QUIESCE_SWEEP_SCHEDULE", () => {
  it.each([
    ["every 10s", /"every 10s": expected an NCRONTAB schedule/],
    ["*/10 * * * * 9", /"\*\/10 \* \* \* \* 9": day of week 9 is not 0-6/],
    ["*/0 * * * * *", /second "\*\/0" has no whole step/],
    ["0 0 25 * * *", /hour 25 is not 0-23/],
    ["0 0 9 * Jum *", /month "Jum" is not 1-12 or a month's name/],
    ["10", /"10": expected an NCRONTAB schedule/],
    ["00:00:00", /a TimeSpan of zero/],
  ])("refuses %s, saying what the Functions host could not read", (schedule, why) => {
    const message = refusal({ ...base, QUIESCE_SWEEP_SCHEDULE: schedule });
    expect(message).toMatch(/^invalid coordinator settings: QUIESCE_SWEEP_SCHEDULE: /);
    expect(message).toMatch(why);
  });

  it.each([
    "*/10 * * * * *",
    "0 */5 * * * *",
    "0 30 9 * Jan Mon",
    "0 30 9 * * 1-5",
    "5,35 0-59/10 * * * *",
    "*/5 * * * *",
    "00:00:10",
    "1.00:00:00",
  ])("takes %s, as the host does", (schedule) => {
    expect(refusal({ ...base, QUIESCE_SWEEP_SCHEDULE: schedule })).toBe("");
  });
});
