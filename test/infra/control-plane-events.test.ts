import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Node } from "web-tree-sitter";
import { bicepCli, declaration, infraDir, parseBicep, properties, repoRoot } from "./bicep";
import { bicepString, descendants, file, targetScope } from "./controlPlaneBicep";
import { compile, evaluateEach, type Json, named, resourcesOf, succeeded } from "./eventsBicep";

/**
 * Control-plane events (PREVIEW in Azure; docs/control-plane.md, "Deploying the control-plane
 * events (preview)"): off by default; on, the maintenance system topic, its event subscription to
 * the coordinator's `maintenanceEvents` function, the Resource Graph role on the control plane's
 * groups and the coordinator's settings; refused without the control plane.
 */

const EVENTS_ACTIONS = [
  "Microsoft.ResourceGraph/resources/read",
  "Microsoft.Compute/virtualMachineScaleSets/read",
];
const EVENTS_SETTINGS = [
  "QUIESCE_CONTROL_PLANE_EVENTS",
  "QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS",
  "QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS",
];
const SUBSCRIPTION = "00000000-0000-0000-0000-0000000000aa";
const noCli = () => console.warn("Bicep CLI not found (scripts/bicep/restore.sh): not evaluated");

/** A compiled value: `[variables('x')]` resolved against the template's variables. */
const resolved = (template: Json, value: unknown) => {
  const name =
    typeof value === "string" ? value.match(/^\[variables\('(\w+)'\)\]$/)?.[1] : undefined;
  return name ? template.variables?.[name] : value;
};

describe("the controlPlaneEvents switch (infra/main.bicep)", () => {
  it("is off by default, a 'true'/'false' string from QUIESCE_CONTROL_PLANE_EVENTS, marked preview", async () => {
    const main = await parseBicep(file("main.bicep"));
    expect(declaration(main, "controlPlaneEvents").text).toBe(
      "param controlPlaneEvents string = 'false'",
    );
    const parameters = JSON.parse(readFileSync(join(infraDir, "main.parameters.json"), "utf8"));
    expect(parameters.parameters.controlPlaneEvents).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: azd's substitution syntax, as written in the file
      value: "${QUIESCE_CONTROL_PLANE_EVENTS=false}",
    });
    const text = readFileSync(file("main.bicep"), "utf8");
    expect(text).toMatch(
      /@allowed\(\['false', 'true'\]\)\n@description\('PREVIEW\. [^\n]*\nparam controlPlaneEvents /,
    );
  });

  it("gates the events deployment and the coordinator's settings on eventsOn", async () => {
    const main = await parseBicep(file("main.bicep"));
    const module = declaration(main, "controlPlaneEventsDelivery");
    expect(module.text).toContain("'core/control-plane-events.bicep'");
    expect(descendants(module, "if_statement")[0]?.namedChild(0)?.text).toBe("(eventsOn)");
    const props = properties(module);
    expect(props.find((p) => p.key === "resourceGroupNames")?.value.text).toBe(
      "controlPlaneGroups",
    );
    expect(props.find((p) => p.key === "functionAppId")?.value.text).toBe(
      "coordinator.outputs.functionAppId",
    );
    const coordinator = properties(declaration(main, "coordinator"));
    expect(coordinator.find((p) => p.key === "controlPlaneEvents")?.value.text).toBe("eventsOn");
  });

  it("is on only with control-plane groups, and refused without them (bicep console)", async () => {
    const bicep = bicepCli();
    if (!bicep) return noCli();
    const main = await parseBicep(file("main.bicep"));
    // The expression itself, not the variable: the console reports a fail() message only there.
    const eventsOn = (value: string, controlPlane: boolean) => ({
      given: { controlPlaneEvents: bicepString(value), controlPlane: String(controlPlane) },
      declarations: [],
      expression: declaration(main, "eventsOn").namedChild(1)?.text ?? "",
    });
    const results = evaluateEach(bicep, [
      eventsOn("false", false),
      eventsOn("false", true),
      eventsOn("true", true),
      eventsOn("true", false),
    ]);
    expect(results.slice(0, 3).map(succeeded)).toEqual([false, false, true]);
    expect(results[3]).toEqual({
      error: expect.stringContaining("controlPlaneEvents needs controlPlaneResourceGroups"),
    });
    // controlPlane is the existing switch: a non-empty list of control-plane groups.
    expect(declaration(main, "controlPlane").namedChild(1)?.text).toBe(
      "!empty(controlPlaneGroups)",
    );
  }, 60_000);
});

describe("the compiled deployment (when the Bicep CLI is restored)", () => {
  const bicep = bicepCli();
  const main = bicep ? compile(bicep, "main.bicep") : undefined;
  const events = main ? named(main, "quiesce-events-") : undefined;
  const nested = events?.properties.template as Json | undefined;

  it("has no Event Grid resource and no event subscription outside the conditional events module", () => {
    if (!main || !events) return noCli();
    expect(events.condition).toBe("[variables('eventsOn')]");
    // Each other subscription's copy (main.bicep, controlPlaneSubscriptions) loops over none
    // unless the events are on: test/infra/subscriptions.test.ts.
    const others = resourcesOf(main).filter(
      (r) => r !== events && !String(r.name).includes("quiesce-subscription-events-"),
    );
    expect(JSON.stringify(others)).not.toMatch(
      /Microsoft\.EventGrid|maintenanceEvents|ResourceGraph/,
    );
    // The outputs that name the topic read the module only when it ran.
    for (const output of [
      "QUIESCE_MAINTENANCE_TOPIC_ID",
      "QUIESCE_MAINTENANCE_EVENT_SUBSCRIPTION_ID",
    ])
      expect(main.outputs[output].value, output).toMatch(/^\[if\(variables\('eventsOn'\), /);
  });

  it("creates the system topic of this subscription's scheduled events, location global", () => {
    if (!nested) return noCli();
    const module = named(nested, "quiesce-maintenance-topic-");
    expect(module.condition).toBe("[variables('createTopic')]");
    expect(nested.variables.createTopic).toBe("[empty(parameters('maintenanceTopicId'))]");
    const template = module.properties.template as Json;
    const [topic] = resourcesOf(template);
    expect(topic?.type).toBe("Microsoft.EventGrid/systemTopics");
    expect(topic?.location).toBe("global");
    expect(topic?.properties.source).toBe("[subscription().id]");
    expect(resolved(template, topic?.properties.topicType)).toBe(
      "Microsoft.ResourceNotifications.MaintenanceResources",
    );
  });

  it("subscribes the coordinator's maintenanceEvents function to scheduled events only", () => {
    if (!nested || !events) return noCli();
    const module = named(nested, "quiesce-maintenance-delivery-");
    expect(module.resourceGroup).toBe("[variables('topicResourceGroup')]");
    expect(module.condition).toBeUndefined(); // always, once the events module runs
    const template = module.properties.template as Json;
    const delivery = resourcesOf(template).find(
      (r) => r.type === "Microsoft.EventGrid/systemTopics/eventSubscriptions",
    );
    const { destination, filter, retryPolicy, eventDeliverySchema } = delivery?.properties ?? {};
    expect(destination.endpointType).toBe("AzureFunction");
    expect(destination.properties.resourceId).toBe(
      "[format('{0}/functions/{1}', parameters('functionAppId'), variables('maintenanceFunctionName'))]",
    );
    expect(template.variables.maintenanceFunctionName).toBe("maintenanceEvents");
    // ...the name the coordinator registers its Event Grid trigger under (functions/src/app.ts).
    const app = readFileSync(join(repoRoot, "functions", "src", "app.ts"), "utf8");
    expect(app).toContain('app.eventGrid("maintenanceEvents"');
    expect(destination.properties.maxEventsPerBatch).toBe(1);
    expect(eventDeliverySchema).toBe("EventGridSchema");
    const advanced = JSON.stringify(filter.advancedFilters).includes("variables(")
      ? [template.variables.scheduledEventsFilter]
      : filter.advancedFilters;
    expect(advanced).toEqual([
      {
        operatorType: "StringContains",
        key: "Subject",
        values: ["/providers/microsoft.maintenance/scheduledevents/"],
      },
    ]);
    expect(filter.includedEventTypes).toBeUndefined(); // the docs name the type three ways
    expect(retryPolicy).toEqual({ maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 });
    // The function app id is the coordinator's, after the coordinator is deployed.
    expect(events.properties.parameters.functionAppId.value).toBe(
      "[reference('coordinator').outputs.functionAppId.value]",
    );
  });

  it("grants the Resource Graph reads by a custom role assigned on each control-plane group only", () => {
    if (!nested) return noCli();
    const role = resourcesOf(nested).find(
      (r) => r.type === "Microsoft.Authorization/roleDefinitions",
    );
    const permissions = role?.properties.permissions[0];
    expect(resolved(nested, permissions.actions)).toEqual(EVENTS_ACTIONS);
    for (const key of ["notActions", "dataActions", "notDataActions"])
      expect(permissions[key]).toEqual([]);
    // [for name in resourceGroupNames: '<subscription>/resourceGroups/<name>'], never "/" or the subscription.
    const scopes = role?.properties.copy?.find((c: Json) => c.name === "assignableScopes");
    expect(scopes?.count).toBe("[length(parameters('resourceGroupNames'))]");
    expect(scopes?.input).toBe(
      "[format('{0}/resourceGroups/{1}', subscription().id, parameters('resourceGroupNames')[copyIndex('assignableScopes')])]",
    );
    const access = named(nested, "quiesce-control-plane-events-");
    expect(access.copy.count).toBe("[length(parameters('resourceGroupNames'))]");
    expect(access.resourceGroup).toBe("[parameters('resourceGroupNames')[copyIndex()]]");
    expect(access).not.toHaveProperty("subscriptionId");
    const assignments = resourcesOf(access.properties.template as Json);
    expect(assignments.map((r) => r.type)).toEqual(["Microsoft.Authorization/roleAssignments"]);
  });
});

describe("the events role and module (infra/core/control-plane-events.bicep)", () => {
  it("has exactly the Resource Graph and scale-set reads, no wildcard, nothing but read", async () => {
    const tree = await parseBicep(file("shared", "control-plane-events.bicep"));
    const array = descendants(declaration(tree, "controlPlaneEventsActions"), "array")[0] as Node;
    const actions = array.namedChildren
      .filter((n) => n?.type === "string")
      .map((n) => n?.text.slice(1, -1));
    expect(actions).toEqual(EVENTS_ACTIONS);
    for (const action of actions) expect(action).toMatch(/^Microsoft\.\w+(\/\w+)+\/read$/);
    const module = await parseBicep(file("core", "control-plane-events.bicep"));
    expect(targetScope(module)).toBe("subscription");
    const props = properties(declaration(module, "role"));
    expect(props.find((p) => p.key === "actions")?.value.text).toBe("controlPlaneEventsActions");
    expect(props.find((p) => p.key === "assignableScopes")?.value.type).toBe("for_statement");
  });

  it("accepts an existing topic only from this subscription (bicep console)", async () => {
    const bicep = bicepCli();
    if (!bicep) return noCli();
    const tree = await parseBicep(file("core", "control-plane-events.bicep"));
    const valid = (id: string) => ({
      given: { maintenanceTopicId: bicepString(id) },
      declarations: ["topicPath", "existingTopicValid"].map((name) =>
        declaration(tree, name).text.replace(
          /subscription\(\)\.subscriptionId/g,
          bicepString(SUBSCRIPTION),
        ),
      ),
      expression: "existingTopicValid",
    });
    const topic = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-shared/providers/Microsoft.EventGrid/systemTopics/maintenance`;
    const cases: [string, boolean][] = [
      [topic, true],
      [topic.toUpperCase(), true],
      [topic.replace(SUBSCRIPTION, "00000000-0000-0000-0000-0000000000bb"), false],
      [topic.replace("systemTopics", "topics"), false],
      [`${topic}/eventSubscriptions/x`, false],
      ["maintenance", false],
      ["", false],
    ];
    const results = evaluateEach(
      bicep,
      cases.map(([id]) => valid(id)),
    );
    expect(results.map(succeeded)).toEqual(cases.map(([, expected]) => expected));
  }, 60_000);
});

describe("the coordinator's settings (infra/core/function-app.bicep)", () => {
  it("are set only with the control plane and the events switch, from the parameters (bicep console)", async () => {
    const bicep = bicepCli();
    if (!bicep) return noCli();
    const app = await parseBicep(file("core", "function-app.bicep"));
    const settings = (cp: boolean, ev: boolean, interval: number, subscriptions: string) => ({
      given: {
        controlPlane: String(cp),
        controlPlaneEvents: String(ev),
        resourceGraphIntervalSeconds: String(interval),
        resourceGraphSubscriptions: bicepString(subscriptions),
      },
      declarations: [declaration(app, "controlPlaneEventsSettings").text],
      expression: "controlPlaneEventsSettings",
    });
    const results = evaluateEach(bicep, [
      settings(false, false, 300, ""),
      settings(false, true, 300, ""),
      settings(true, false, 300, SUBSCRIPTION),
      settings(true, true, 300, ""),
      settings(true, true, 0, `${SUBSCRIPTION},00000000-0000-0000-0000-0000000000bb`),
    ]).map(succeeded);
    expect(results.slice(0, 3)).toEqual([{}, {}, {}]);
    expect(results[3]).toEqual({
      QUIESCE_CONTROL_PLANE_EVENTS: "true",
      QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "300",
    });
    expect(results[4]).toEqual({
      QUIESCE_CONTROL_PLANE_EVENTS: "true",
      QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
      QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS: `${SUBSCRIPTION},00000000-0000-0000-0000-0000000000bb`,
    });
    expect(declaration(app, "coordinatorSettings").text).toContain("controlPlaneEventsSettings");
    expect(declaration(app, "controlPlaneEvents").text).toMatch(
      /param controlPlaneEvents bool = false$/,
    );
  }, 60_000);

  it("are documented in docs/deploy.md, and the role's actions in docs/control-plane.md", () => {
    const deploy = readFileSync(join(repoRoot, "docs", "deploy.md"), "utf8");
    for (const name of EVENTS_SETTINGS) expect(deploy.includes(`\`${name}\``), name).toBe(true);
    const doc = readFileSync(join(repoRoot, "docs", "control-plane.md"), "utf8");
    const table = doc
      .split("<!-- control-plane-events-actions:start -->")[1]
      ?.split("<!-- control-plane-events-actions:end -->")[0];
    if (!table) throw new Error("docs/control-plane.md has no control-plane-events-actions table");
    const documented = table
      .split("\n")
      .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
      .slice(1)
      .map((line) => line.split("|")[1]?.trim().replace(/`/g, ""));
    expect(documented).toEqual(EVENTS_ACTIONS);
  });
});
