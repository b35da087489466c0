import { likelyMeant } from "@quiesce/protocol";
import { describe, expect, it } from "vitest";
import { settingsFrom } from "../src/cli";
import { parseCliArgs } from "../src/cliArgs";
import { parseConfigFile, parseRelaySettings, RELAY_SETTING_NAMES } from "../src/config";

/**
 * The relay's settings read strictly (issue 31): an environment variable is text; a config file's
 * value is of the setting's JSON type, or the text its environment variable would hold. A
 * misspelled name is refused with the name meant; a URL that is none is refused by name.
 */

const base = {
  QUIESCE_COORDINATOR_URL: "http://127.0.0.1:7071",
  QUIESCE_CLUSTER: "web",
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "0123456789abcdef",
};
const noArgs = parseCliArgs([]);
const file = (o: object) => parseConfigFile(JSON.stringify(o), "relay.json");
const refusal = (f: () => unknown): string => {
  try {
    f();
    return "";
  } catch (e) {
    return (e as Error).message;
  }
};

describe("a number in the config file", () => {
  it.each([
    [true, "a boolean (true)"],
    [[5], "an array ([5])"],
    [5.5, "a number (5.5)"],
    ["5s", 'a string ("5s")'],
    [null, "null"],
    [{ seconds: 5 }, 'an object ({"seconds":5})'],
  ])("is refused as %j, naming the key and the type expected", (value, got) => {
    expect(refusal(() => file({ QUIESCE_HOOK_TIMEOUT_SECONDS: value }))).toBe(
      `config file relay.json: QUIESCE_HOOK_TIMEOUT_SECONDS: expected a whole number 1-86400 (a JSON number, or text of digits), got ${got}`,
    );
  });

  it("is taken as a JSON number or as the text its environment variable would hold", () => {
    expect(file({ QUIESCE_HOOK_TIMEOUT_SECONDS: 30 }).QUIESCE_HOOK_TIMEOUT_SECONDS).toBe(30);
    const s = parseRelaySettings({ ...base, ...file({ QUIESCE_HOOK_TIMEOUT_SECONDS: "30" }) });
    expect(s.QUIESCE_HOOK_TIMEOUT_SECONDS).toBe(30);
  });

  it("is still range-checked", () => {
    expect(refusal(() => file({ QUIESCE_POLL_INTERVAL_MS: 50 }))).toMatch(
      /^config file relay\.json: QUIESCE_POLL_INTERVAL_MS: Too small/,
    );
  });
});

describe("a yes/no setting in the config file", () => {
  it("is refused as a number or another word, naming the words it takes", () => {
    expect(refusal(() => file({ QUIESCE_DRY_RUN: 1 }))).toBe(
      "config file relay.json: QUIESCE_DRY_RUN: expected true or false (a JSON boolean, or the text true, 1, yes, false, 0 or no), got a number (1)",
    );
    expect(refusal(() => file({ QUIESCE_KUBERNETES_DRAIN: "on" }))).toMatch(
      /got a string \("on"\)/,
    );
  });

  it("is taken as a JSON boolean or as the environment's words", () => {
    expect(parseRelaySettings({ ...base, QUIESCE_DRY_RUN: true }).QUIESCE_DRY_RUN).toBe(true);
    expect(parseRelaySettings({ ...base, QUIESCE_DRY_RUN: "yes" }).QUIESCE_DRY_RUN).toBe(true);
  });
});

describe("a text setting in the config file", () => {
  it("is refused as another JSON type, naming the key", () => {
    expect(refusal(() => file({ QUIESCE_CLUSTER: 7 }))).toBe(
      "config file relay.json: QUIESCE_CLUSTER: Invalid input: expected string, received number",
    );
  });
});

describe("a URL setting holding no URL", () => {
  it.each([
    "QUIESCE_COORDINATOR_URL",
    "QUIESCE_KUBERNETES_API_URL",
    "QUIESCE_DRAIN_URL",
    "QUIESCE_RECOVER_URL",
    "QUIESCE_IMDS_URL",
  ])("%s is refused by name, quoting the value, never as a bare 'Invalid URL'", (name) => {
    expect(refusal(() => parseRelaySettings({ ...base, [name]: "htp:/x" }))).toBe(
      `invalid relay settings: ${name}: not a valid URL ("htp:/x")`,
    );
  });
});

describe("a misspelled environment variable", () => {
  const env = { ...base, PATH: "/usr/bin" };

  it("is refused with the name meant: with no drain hook, a VM would count as drained at once", () => {
    expect(
      refusal(() => settingsFrom(noArgs, { ...env, QUIESCE_DRAIN_COMAND: "/bin/drain" })),
    ).toBe(
      "invalid relay settings: QUIESCE_DRAIN_COMAND: not a setting; did you mean QUIESCE_DRAIN_COMMAND?",
    );
    expect(refusal(() => settingsFrom(noArgs, { ...env, quiesce_dry_run: "true" }))).toMatch(
      /quiesce_dry_run: not a setting; did you mean QUIESCE_DRY_RUN\?/,
    );
  });

  it("is listed with the other problems of the settings", () => {
    expect(
      refusal(() =>
        settingsFrom(noArgs, { ...env, QUIESCE_CLUSTR: "web", QUIESCE_DRY_RUN: "maybe" }),
      ),
    ).toMatch(
      /^invalid relay settings: QUIESCE_CLUSTR: not a setting; did you mean QUIESCE_CLUSTER\?; QUIESCE_DRY_RUN: expected true or false/,
    );
  });

  it("is not another program's name (the CLI's, a hook's): those are near no relay setting", () => {
    const others = {
      QUIESCE_URL: "x",
      QUIESCE_TOKEN: "x",
      QUIESCE_EVENT_ID: "x",
      QUIESCE_HOOK: "x",
    };
    expect(settingsFrom(noArgs, { ...env, ...others }).QUIESCE_CLUSTER).toBe("web");
  });

  it("can never be taken for another real setting: no two are that near each other", () => {
    const names: string[] = RELAY_SETTING_NAMES;
    expect(
      names.filter((a) =>
        likelyMeant(
          a,
          names.filter((b) => b !== a),
        ),
      ),
    ).toEqual([]);
  });
});
