import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RelaySettings } from "@quiesce/relay";
import { describe, expect, it } from "vitest";
import {
  bicepCli,
  declaration,
  infraDir,
  parseBicep,
  properties,
  repoRoot,
  stringLiteral,
} from "./bicep";
import { runBicep } from "./bicepRun";

/**
 * The relay extension end to end, as far as it runs without Azure: the settings Bicep computes
 * are what the relay accepts, and the files the extension downloads are the files packaging
 * produces and the relay's install scripts expect.
 */

const bicepLiteral = (v: unknown): string =>
  typeof v === "string"
    ? `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
    : v === undefined
      ? "null"
      : String(v);

describe("relay extension (infra/relay/extension.bicep)", () => {
  it("computes settings the relay's schema accepts, without the unset ones (evaluated by the Bicep console)", async () => {
    const bicep = bicepCli();
    if (!bicep) {
      console.warn("Bicep CLI not found (scripts/bicep/restore.sh): relaySettings() not evaluated");
      return;
    }
    const config: Record<string, unknown> = {
      coordinatorUrl: "https://func-quiesce-abc.azurewebsites.net",
      cluster: "web",
      entraAudience: "api://00000000-0000-0000-0000-000000000001",
      drainCommand: "systemctl stop nginx && echo 'drained'",
      hookTimeoutSeconds: 300,
      dryRun: true,
      logLevel: "debug",
    };
    const tree = await parseBicep(join(infraDir, "relay", "extension.bicep"));
    const fn = declaration(tree, "relaySettings");
    const body = fn.namedChild(fn.namedChildCount - 1)?.text ?? "";
    // The function's parameter replaced by literals: the console cannot import from a file.
    const expression = body.replace(/\bconfig\.\??([A-Za-z]+)/g, (_m, name: string) =>
      bicepLiteral(config[name]),
    );
    const result = runBicep(bicep, ["console"], {
      input: `base64(string(${expression}))\n`,
      timeout: 60_000,
    });
    const line = result.stdout.trim().split("\n").pop() ?? "";
    expect(line, result.stdout + result.stderr).toMatch(/^'[A-Za-z0-9+/=]+'$/);
    const settings = JSON.parse(Buffer.from(line.slice(1, -1), "base64").toString("utf8"));

    expect(Object.keys(settings).sort()).toEqual(
      [
        "QUIESCE_AUTH_MODE",
        "QUIESCE_CLUSTER",
        "QUIESCE_COORDINATOR_URL",
        "QUIESCE_DRAIN_COMMAND",
        "QUIESCE_DRY_RUN",
        "QUIESCE_ENTRA_AUDIENCE",
        "QUIESCE_HOOK_TIMEOUT_SECONDS",
        "QUIESCE_LOG_LEVEL",
      ].sort(),
    );
    const parsed = RelaySettings.parse(settings);
    expect(parsed.QUIESCE_DRAIN_COMMAND).toBe(config.drainCommand);
    expect(parsed.QUIESCE_DRY_RUN).toBe(true);
    expect(parsed.QUIESCE_HOOK_TIMEOUT_SECONDS).toBe(300);
    expect(parsed.QUIESCE_AUTH_MODE).toBe("managedIdentity");
  }, 60_000);

  it("downloads the files packaging produces and the relay's install scripts expect", async () => {
    const tree = await parseBicep(join(infraDir, "relay", "extension.bicep"));
    const packager = readFileSync(join(repoRoot, "scripts", "package", "relay.mjs"), "utf8");
    for (const [fn, os] of [
      ["linuxExtensionProperties", "linux"],
      ["windowsExtensionProperties", "windows"],
    ] as const) {
      const props = properties(declaration(tree, fn));
      const uris = props.find((p) => p.key === "fileUris")?.value.text ?? "";
      const names = [...uris.matchAll(/\}\/([A-Za-z0-9._-]+)'/g)].map((m) => m[1] as string);
      expect(names, fn).toHaveLength(2);
      const [script, archive] = names as [string, string];
      // The entry script is the relay's own, and it unpacks the archive by that name.
      const entry = readFileSync(join(repoRoot, "relay", "packaging", os, script), "utf8");
      expect(entry, `${os}/${script}`).toContain(archive);
      // Packaging writes both under those names.
      expect(packager).toContain(`"${archive}"`);
      expect(packager).toContain(`"${script}"`);
      // The command runs that script with the settings as its one argument.
      const command = props.find((p) => p.key === "commandToExecute")?.value;
      expect(command && stringLiteral(command) === undefined).toBe(true); // interpolated
      expect(command?.text).toContain(script);
    }
  });
});
