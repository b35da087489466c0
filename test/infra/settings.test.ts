import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COORDINATOR_SETTING_FIELDS, COORDINATOR_SETTING_NAMES } from "@quiesce/functions";
import { RELAY_SETTING_FIELDS, RELAY_SETTING_NAMES } from "@quiesce/relay";
import { describe, expect, it } from "vitest";
import {
  declaration,
  infraDir,
  parseBicep,
  properties,
  propertiesDeep,
  repoRoot,
  stringLiteral,
} from "./bicep";

/**
 * The names in infra/ are the names the code reads: an app setting or extension setting with a
 * typo would deploy fine and be silently ignored (or a required one missing would fail at the
 * first report), so they are checked against the config schemas themselves.
 */

// The Functions host's and Azure SDK's own settings, which the coordinator does not read.
const HOST_SETTINGS = new Set([
  "AzureWebJobsStorage__credential",
  "AzureWebJobsStorage__clientId",
  "AzureWebJobsStorage__blobServiceUri",
  "AzureWebJobsStorage__queueServiceUri",
  "AzureWebJobsStorage__tableServiceUri",
  "APPLICATIONINSIGHTS_CONNECTION_STRING",
  "APPLICATIONINSIGHTS_AUTHENTICATION_STRING",
  "AZURE_CLIENT_ID",
]);

// What the coordinator needs in Azure (entra mode, table endpoint with managed identity).
const REQUIRED_COORDINATOR = [
  "QUIESCE_TABLE_ENDPOINT",
  "QUIESCE_AUTH_MODE",
  "QUIESCE_ENTRA_TENANT_ID",
  "QUIESCE_ENTRA_AUDIENCE",
];
// Secrets and local-only settings have no place in the Azure deployment.
const FORBIDDEN_COORDINATOR = [
  "QUIESCE_STORAGE_CONNECTION_STRING",
  "QUIESCE_RELAY_KEY",
  "QUIESCE_OPERATOR_KEY",
  "QUIESCE_READER_KEY",
];

const REQUIRED_RELAY = [
  "QUIESCE_COORDINATOR_URL",
  "QUIESCE_CLUSTER",
  "QUIESCE_AUTH_MODE",
  "QUIESCE_ENTRA_AUDIENCE",
];

async function settingsOf(file: string, name: string) {
  const tree = await parseBicep(join(infraDir, file));
  return propertiesDeep(tree, name);
}

/** A literal value must be accepted by the schema's own field (e.g. an enum member). */
function literalProblems(
  settings: { key: string; value: import("web-tree-sitter").Node }[],
  shape: Record<string, { safeParse(v: unknown): { success: boolean } }>,
): string[] {
  return settings.flatMap(({ key, value }) => {
    const literal = stringLiteral(value);
    const field = shape[key];
    if (literal === undefined || !field) return [];
    return field.safeParse(literal).success
      ? []
      : [`${key}: '${literal}' is refused by the schema`];
  });
}

describe("coordinator app settings in infra/core/function-app.bicep", () => {
  it("uses only names the coordinator's config schema or the Functions host knows", async () => {
    const keys = (await settingsOf("core/function-app.bicep", "appSettings")).map((s) => s.key);
    const known = new Set([...COORDINATOR_SETTING_NAMES, ...HOST_SETTINGS]);
    expect(keys.filter((k) => !known.has(k))).toEqual([]);
    expect(keys.length).toBeGreaterThan(REQUIRED_COORDINATOR.length);
  });

  it("sets every setting the coordinator requires in Azure, and none of the secrets", async () => {
    const keys = (await settingsOf("core/function-app.bicep", "appSettings")).map((s) => s.key);
    expect(REQUIRED_COORDINATOR.filter((k) => !keys.includes(k))).toEqual([]);
    expect(FORBIDDEN_COORDINATOR.filter((k) => keys.includes(k))).toEqual([]);
    // Flex Consumption sets the runtime in functionAppConfig and refuses these as app settings.
    expect(keys).not.toContain("FUNCTIONS_WORKER_RUNTIME");
    expect(keys).not.toContain("FUNCTIONS_EXTENSION_VERSION");
  });

  it("gives literal values the coordinator's schema accepts (QUIESCE_AUTH_MODE is entra)", async () => {
    const settings = await settingsOf("core/function-app.bicep", "appSettings");
    expect(literalProblems(settings, COORDINATOR_SETTING_FIELDS)).toEqual([]);
    expect(settings.find((s) => s.key === "QUIESCE_AUTH_MODE")?.value.text).toBe("'entra'");
  });

  it("sets every %SETTING% the Functions host resolves in trigger bindings", async () => {
    const keys = (await settingsOf("core/function-app.bicep", "appSettings")).map((s) => s.key);
    const sources = readdirSync(join(repoRoot, "functions", "src"), {
      recursive: true,
      encoding: "utf8",
    })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .map((f) => readFileSync(join(repoRoot, "functions", "src", f), "utf8"));
    const referenced = new Set(
      sources.flatMap((s) => [...s.matchAll(/"%([A-Za-z0-9_]+)%"/g)].map((m) => m[1] as string)),
    );
    expect(referenced.size).toBeGreaterThan(0);
    expect([...referenced].filter((k) => !keys.includes(k))).toEqual([]);
  });
});

describe("relay settings in infra/relay/extension.bicep", () => {
  it("uses only names the relay's config schema knows", async () => {
    const keys = (await settingsOf("relay/extension.bicep", "relaySettings")).map((s) => s.key);
    expect(keys.filter((k) => !(RELAY_SETTING_NAMES as string[]).includes(k))).toEqual([]);
  });

  it("sets the settings a relay needs in Azure, with managed identity authentication", async () => {
    const settings = await settingsOf("relay/extension.bicep", "relaySettings");
    const keys = settings.map((s) => s.key);
    expect(REQUIRED_RELAY.filter((k) => !keys.includes(k))).toEqual([]);
    expect(keys).not.toContain("QUIESCE_RELAY_KEY");
    expect(literalProblems(settings, RELAY_SETTING_FIELDS)).toEqual([]);
    expect(settings.find((s) => s.key === "QUIESCE_AUTH_MODE")?.value.text).toBe(
      "'managedIdentity'",
    );
  });

  it("keeps the settings in protectedSettings only", async () => {
    const tree = await parseBicep(join(infraDir, "relay", "extension.bicep"));
    for (const fn of ["linuxExtensionProperties", "windowsExtensionProperties"]) {
      const props = properties(declaration(tree, fn));
      const keys = props.map((p) => p.key);
      expect(keys).toContain("protectedSettings");
      expect(keys).not.toContain("settings"); // public settings are readable from the VM model
      const command = props.find((p) => p.key === "commandToExecute")?.value.text ?? "";
      expect(command).toContain("relaySettings(config)");
      // The VM's identity downloads fileUris: no SAS token, no public container.
      expect(props.find((p) => p.key === "managedIdentity")?.value.text).toBe(
        "downloadIdentity(artifacts)",
      );
    }
  });
});
