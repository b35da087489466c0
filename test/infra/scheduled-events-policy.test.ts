import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bicepCli, declaration, infraDir, parseBicep, repoRoot } from "./bicep";
import { file } from "./controlPlaneBicep";
import {
  allowedValues,
  buildParams,
  compile,
  consoleDeclarations,
  consoleEval,
  decoratorsOf,
  type Evaluated,
  type Json,
  resourcesOf,
  succeeded,
} from "./eventsBicep";

/**
 * scheduledEventsPolicy, Terminate and OS image notifications on the operator's scale sets and
 * availability sets (PREVIEW; docs/deploy.md, "Control-plane events (preview)"). Bicep cannot
 * patch an existing scale set, so main.bicep deploys nothing for them: it validates the parameters
 * and outputs the `az` commands, which these tests evaluate with `bicep console`.
 */

const SUB = "00000000-0000-0000-0000-0000000000aa";
const VMSS = `/subscriptions/${SUB}/resourceGroups/rg-web/providers/Microsoft.Compute/virtualMachineScaleSets/web`;
const AVSET = `/subscriptions/${SUB}/resourceGroups/rg-db/providers/Microsoft.Compute/availabilitySets/db`;
const NEW_PARAMS = [
  "controlPlaneEvents",
  "resourceGraphIntervalSeconds",
  "resourceGraphSubscriptions",
  "maintenanceTopicId",
  "scheduledEventsScaleSets",
  "scheduledEventsAvailabilitySets",
  "scheduledEventsAutoApproveReboot",
  "scheduledEventsAutoApproveRedeploy",
  "terminateNotificationTimeout",
  "osImageNotification",
];
const noCli = () => console.warn("Bicep CLI not found (scripts/bicep/restore.sh): not evaluated");
const str = (s: string) => `'${s}'`;

describe("the parameters (infra/main.bicep)", () => {
  it("are each marked PREVIEW, and documented in docs/deploy.md", async () => {
    const main = await parseBicep(file("main.bicep"));
    const deploy = readFileSync(join(repoRoot, "docs", "deploy.md"), "utf8");
    for (const name of NEW_PARAMS) {
      expect(decoratorsOf(main, name), name).toMatch(/@description\('PREVIEW[. ]/);
      expect(deploy.includes(`\`${name}\``), `${name} in docs/deploy.md`).toBe(true);
    }
  });

  it("allow only PT5M to PT15M (or nothing) as the Terminate timeout", async () => {
    const main = await parseBicep(file("main.bicep"));
    const allowed = allowedValues(decoratorsOf(main, "terminateNotificationTimeout"));
    expect(allowed).toEqual(["", ...Array.from({ length: 11 }, (_, i) => `PT${i + 5}M`)]);
    expect(declaration(main, "terminateNotificationTimeout").text).toMatch(/string = ''$/);
    for (const name of ["scheduledEventsAutoApproveReboot", "scheduledEventsAutoApproveRedeploy"]) {
      expect(allowedValues(decoratorsOf(main, name)), name).toEqual(["false", "true"]);
      expect(declaration(main, name).text, name).toMatch(/string = 'false'$/); // default: not approved
    }
  });

  it("are refused by the compiler when out of range, accepted otherwise (bicep build-params)", () => {
    const bicep = bicepCli();
    if (!bicep) return noCli();
    const bad = ["PT20M", "PT4M", "PT600S", "10"];
    const results = buildParams(bicep, [
      ...bad.map((v) => [`param terminateNotificationTimeout = '${v}'`]),
      ["param controlPlaneEvents = 'yes'"],
      ["param resourceGraphIntervalSeconds = -1"],
      ["param resourceGraphIntervalSeconds = 86401"],
      [
        "param terminateNotificationTimeout = 'PT10M'",
        "param osImageNotification = 'true'",
        `param scheduledEventsScaleSets = '${VMSS}'`,
      ],
    ]);
    bad.forEach((v, i) => {
      expect(results[i]?.ok, v).toBe(false);
      expect(results[i]?.output, v).toMatch(/terminateNotificationTimeout|PT15M|BCP/);
    });
    expect(results.slice(4, 7).map((r) => r.ok)).toEqual([false, false, false]);
    const good = results[7];
    expect(good?.output).not.toMatch(/ : Error /);
    expect(good?.ok).toBe(true);
  }, 120_000);

  it("are all azd environment values, empty or 'false' by default (infra/main.parameters.json)", () => {
    const parameters = JSON.parse(readFileSync(join(infraDir, "main.parameters.json"), "utf8"));
    const mapped = Object.entries(parameters.parameters as Record<string, { value: string }>)
      .filter(([name]) => NEW_PARAMS.includes(name))
      .map(([name, { value }]) => [name, value.match(/^\$\{QUIESCE_[A-Z_]+=(.*)\}$/)?.[1]]);
    // The interval is an int, passed with -p like instanceMemoryMB (azd passes text).
    expect(mapped.map(([name]) => name)).toEqual(
      NEW_PARAMS.filter((n) => n !== "resourceGraphIntervalSeconds"),
    );
    for (const [name, fallback] of mapped) expect(["", "false"], String(name)).toContain(fallback);
  });
});

describe("the emitted commands (infra/shared/control-plane-events.bicep, bicep console)", () => {
  // Every test's expressions in one `bicep console` session (a CLI start is seconds of CPU).
  const expressions = {
    commands: [
      `scheduledEventsCommands(['${VMSS}'], ['${AVSET}'], scheduledEventsPolicy(false, true), 'PT10M', true)`,
      `scheduledEventsCommands([], [], scheduledEventsPolicy(false, false), 'PT10M', true)`,
      `scheduledEventsCommands(['${VMSS}'], [], scheduledEventsPolicy(false, false), '', false)`,
    ],
    minutes: Array.from({ length: 11 }, (_, i) => `durationMinutes('PT${i + 5}M')`),
    ids: [
      `computeIds('${VMSS}, ${VMSS},', 'virtualMachineScaleSets')`,
      `computeIds('${AVSET.toLowerCase()}', 'availabilitySets')`,
      `computeIds('', 'availabilitySets')`,
      `computeIds('${AVSET}', 'virtualMachineScaleSets')`,
      `computeIds('web', 'virtualMachineScaleSets')`,
      `computeIds('${VMSS}/virtualMachines/0', 'virtualMachineScaleSets')`,
    ],
    features: ["previewFeatureCommands"],
  };
  let all: Promise<Record<keyof typeof expressions, Evaluated[]> | undefined> | undefined;
  const evaluate = (group: keyof typeof expressions) => {
    all ??= (async () => {
      const bicep = bicepCli();
      if (!bicep) return undefined;
      const groups = Object.entries(expressions);
      const results = consoleEval(
        bicep,
        await consoleDeclarations("shared/control-plane-events.bicep"),
        groups.flatMap(([, e]) => e),
      );
      const starts = groups.map((_, i) => groups.slice(0, i).reduce((n, [, e]) => n + e.length, 0));
      return Object.fromEntries(
        groups.map(([name, e], i) => [name, results.slice(starts[i], (starts[i] ?? 0) + e.length)]),
      ) as Record<keyof typeof expressions, Evaluated[]>;
    })();
    return all.then((r) => r?.[group]);
  };

  it("set scheduledEventsPolicy on every named group, then the scale sets' notifications", async () => {
    const results = await evaluate("commands");
    if (!results) return noCli();
    const [both, none, policyOnly] = results.map(succeeded) as string[][];
    const policy = (command: string) =>
      JSON.parse(command.match(/scheduledEventsPolicy='(.*)'$/)?.[1] ?? "null");
    expect(both?.map((c) => c.replace(/ --set .*| --enable.*/, ""))).toEqual([
      `az vmss update --ids ${VMSS}`,
      `az vm availability-set update --ids ${AVSET}`,
      `az vmss update --ids ${VMSS}`,
      `az vmss update --ids ${VMSS}`,
    ]);
    for (const command of both?.slice(0, 2) ?? [])
      expect(policy(command)).toEqual({
        userInitiatedReboot: { automaticallyApprove: false },
        userInitiatedRedeploy: { automaticallyApprove: true },
        scheduledEventsAdditionalPublishingTargets: {
          eventGridAndResourceGraph: { enable: true, scheduledEventsApiVersion: "2020-07-01" },
        },
      });
    expect(both?.[2]).toMatch(
      / --enable-terminate-notification true --terminate-notification-time 10$/,
    );
    expect(both?.[3]).toMatch(/ --enable-osimage-notification true$/);
    expect(none).toEqual([]); // nothing named: nothing to run
    expect(policyOnly).toHaveLength(1);
  }, 60_000);

  it("give the Azure CLI the timeout in minutes, 5 to 15", async () => {
    const results = await evaluate("minutes");
    if (!results) return noCli();
    expect(results.map(succeeded)).toEqual(Array.from({ length: 11 }, (_, i) => i + 5));
  }, 60_000);

  it("refuse anything but a scale set or availability set id, naming it", async () => {
    const results = await evaluate("ids");
    if (!results) return noCli();
    expect(results.slice(0, 3).map(succeeded)).toEqual([[VMSS], [AVSET.toLowerCase()], []]);
    for (const [i, named] of [
      [3, AVSET],
      [4, "web"],
      [5, `${VMSS}/virtualMachines/0`],
    ] as const)
      expect(results[i], String(named)).toEqual({
        error: expect.stringMatching(
          new RegExp(
            `^Not a Microsoft\\.Compute/virtualMachineScaleSets resource id .*: ${named.replace(/[/.]/g, "\\$&")}$`,
          ),
        ),
      });
  }, 60_000);

  it("register both feature flags, wait for Registered, then re-register the providers", async () => {
    const results = await evaluate("features");
    if (!results) return noCli();
    const commands = succeeded(results[0]) as string[];
    const at = (part: string) => commands.findIndex((c) => c.includes(part));
    expect(
      at("feature register --namespace Microsoft.Compute --name SendScheduledEventsPolicy"),
    ).toBeGreaterThanOrEqual(0);
    expect(
      at("feature register --namespace Microsoft.Maintenance --name ScheduledEventsActivity"),
    ).toBeGreaterThanOrEqual(0);
    expect(at("feature show")).toBeGreaterThan(
      at("feature register --namespace Microsoft.Maintenance"),
    );
    expect(at("provider register --namespace Microsoft.Compute")).toBeGreaterThan(
      at("feature show"),
    );
    expect(at("provider register --namespace Microsoft.Maintenance")).toBeGreaterThan(
      at("feature show"),
    );
  }, 60_000);
});

describe("main.bicep for the named groups (when the Bicep CLI is restored)", () => {
  it("deploys nothing to them: no Microsoft.Compute resource, only the outputs", async () => {
    const bicep = bicepCli();
    if (!bicep) return noCli();
    const template = compile(bicep, "main.bicep");
    // Every resource type deployed, nested deployments included.
    const types = (t: Json): string[] =>
      resourcesOf(t).flatMap((r) => [
        String(r.type),
        ...(r.properties?.template ? types(r.properties.template) : []),
      ]);
    const deployed = types(template);
    expect(deployed).toContain("Microsoft.EventGrid/systemTopics"); // the walk does reach nested ones
    expect(deployed.filter((t) => /^Microsoft\.(Compute|Features)\//.test(t))).toEqual([]);
    const commands = template.outputs.QUIESCE_SCHEDULED_EVENTS_COMMANDS.value as string;
    expect(commands).toContain("variables('scheduledEventsScaleSetIds')");
    expect(commands).toContain("variables('scheduledEventsAvailabilitySetIds')");
    expect(commands).toContain("equals(parameters('scheduledEventsAutoApproveReboot'), 'true')");
    expect(commands).toContain("parameters('terminateNotificationTimeout')");
    const features = template.outputs.QUIESCE_PREVIEW_FEATURE_COMMANDS.value as string;
    expect(features).toMatch(/^\[if\(or\(variables\('eventsOn'\), /);
    const main = await parseBicep(file("main.bicep"));
    for (const [name, type] of [
      ["scheduledEventsScaleSetIds", "virtualMachineScaleSets"],
      ["scheduledEventsAvailabilitySetIds", "availabilitySets"],
    ])
      expect(declaration(main, name ?? "").namedChild(1)?.text).toBe(
        `events.computeIds(${name === "scheduledEventsScaleSetIds" ? "scheduledEventsScaleSets" : "scheduledEventsAvailabilitySets"}, ${str(type ?? "")})`,
      );
  }, 60_000);
});
