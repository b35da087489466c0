import { describe, expect, it } from "vitest";
import { bicepCli, declaration, parseBicep } from "./bicep";
import { bicepString, file } from "./controlPlaneBicep";
import {
  compile,
  consoleDeclarations,
  evaluateEach,
  type Json,
  resourcesOf,
  succeeded,
} from "./eventsBicep";

/**
 * Many subscriptions (main.bicep, controlPlaneSubscriptions; docs/control-plane.md, "Many
 * subscriptions"): the list's parsing and refusals, evaluated with `bicep console` (one CLI start),
 * and the compiled deployment (the shared cached compile of main.bicep): per other subscription a
 * subscription-scoped module with its own role, assignable to and assigned on its named groups
 * only, before the coordinator starts; its own topic and event subscription only with the events.
 */
const noCli = () => console.warn("Bicep CLI not found (scripts/bicep/restore.sh): not evaluated");

const OWN = "00000000-0000-0000-0000-0000000000aa";
const B = "00000000-0000-0000-0000-0000000000bb";
const C = "00000000-0000-0000-0000-0000000000cc";
const group = (sub: string, name: string) => `/subscriptions/${sub}/resourceGroups/${name}`;
const topic = (sub: string) =>
  `${group(sub, "rg-events")}/providers/Microsoft.EventGrid/systemTopics/maintenance`;

describe("the list of other subscriptions' resource groups (bicep console)", () => {
  it("parses, groups by subscription, refuses what is not a group id or names the own subscription, and sets QUIESCE_SUBSCRIPTIONS", async () => {
    const bicep = bicepCli();
    if (!bicep) return noCli();
    const subs = await consoleDeclarations("shared/subscriptions.bicep");
    const main = await parseBicep(file("main.bicep"));
    const app = await parseBicep(file("core", "function-app.bicep"));
    const on = (expression: string, given: Record<string, string> = {}) => ({
      given,
      declarations: [subs],
      expression,
    });
    const list = `${group(B, "rg-web")} , ${group(B.toUpperCase(), "RG-Web")},${group(C, "rg-db")},,${group(B, "rg-lb")}`;
    const otherSubscriptions = (groups: string, controlPlane: boolean) => ({
      given: {
        otherGroupIds: `groupIds(${bicepString(groups)})`,
        controlPlane: String(controlPlane),
      },
      declarations: [subs.replace(/subscription\(\)\.subscriptionId/g, bicepString(OWN))],
      expression: (declaration(main, "otherSubscriptions").namedChild(1)?.text ?? "")
        .replace("subscription().subscriptionId", bicepString(OWN))
        .replace(/\bsubs\./g, ""),
    });
    const settings = (controlPlane: boolean, subscriptions: string) => ({
      given: { controlPlane: String(controlPlane), subscriptions: bicepString(subscriptions) },
      declarations: [declaration(app, "subscriptionSettings").text],
      expression: "subscriptionSettings",
    });
    const r = evaluateEach(bicep, [
      on(`groupIds(${bicepString(list)})`),
      on(`subscriptionIds(groupIds(${bicepString(list)}))`),
      on(`groupsIn(groupIds(${bicepString(list)}), '${B.toUpperCase()}')`),
      on(`groupIds(${bicepString(`${group(B, "rg-web")},/subscriptions/sub-1/resourceGroups/x`)})`),
      on(
        `groupIds(${bicepString(`${group(B, "rg-web")}/providers/Microsoft.Compute/virtualMachines/vm`)})`,
      ),
      on(`groupIds('')`),
      otherSubscriptions(list, true),
      otherSubscriptions(`${group(OWN, "rg-x")}`, true),
      otherSubscriptions(list, false),
      otherSubscriptions("", false),
      on(`topicIn(${bicepString(`${topic(OWN)},${topic(C)}`)}, '${C}')`),
      on(`topicIn(${bicepString(topic(OWN))}, '${B}')`),
      on(`topicsOutside(${bicepString(`${topic(OWN)},${topic(C)}`)}, ['${B}', '${C}'])`),
      on(`servedSubscriptions('${OWN}', ['${B}', '${C}'])`),
      on(`servedSubscriptions('${OWN}', [])`),
      settings(true, `${OWN},${B}`),
      settings(false, `${OWN},${B}`),
      settings(true, ""),
    ]);
    expect(succeeded(r[0])).toEqual(
      [group(B, "rg-web"), group(C, "rg-db"), group(B, "rg-lb")].map((g) => g.toLowerCase()),
    );
    expect(succeeded(r[1])).toEqual([B, C]);
    expect(succeeded(r[2])).toEqual(["rg-web", "rg-lb"]);
    expect(r[3]).toEqual({
      error: expect.stringContaining(
        "controlPlaneSubscriptions: not a resource group id (/subscriptions/<subscription id, a GUID>/resourceGroups/<name>): /subscriptions/sub-1/resourceGroups/x",
      ),
    });
    expect(r[4]).toEqual({ error: expect.stringContaining("not a resource group id") });
    expect(succeeded(r[5])).toEqual([]);
    expect(succeeded(r[6])).toEqual([B, C]);
    expect(r[7]).toEqual({
      error: expect.stringContaining(
        `controlPlaneSubscriptions names the deployment's own subscription ${OWN}`,
      ),
    });
    expect(r[8]).toEqual({
      error: expect.stringContaining("controlPlaneSubscriptions needs controlPlaneResourceGroups"),
    });
    expect(succeeded(r[9])).toEqual([]);
    expect(succeeded(r[10])).toBe(topic(C));
    expect(succeeded(r[11])).toBe("");
    expect(succeeded(r[12])).toBe(topic(OWN));
    expect(succeeded(r[13])).toBe(`${OWN},${B},${C}`);
    expect(succeeded(r[14])).toBe("");
    expect(succeeded(r[15])).toEqual({ QUIESCE_SUBSCRIPTIONS: `${OWN},${B}` });
    expect(succeeded(r[16])).toEqual({});
    expect(succeeded(r[17])).toEqual({});
  }, 60_000);
});

describe("the compiled deployment's other subscriptions (when the Bicep CLI is restored)", () => {
  const bicep = bicepCli();
  const main = bicep ? compile(bicep, "main.bicep") : undefined;
  const byName = (part: string) =>
    main ? resourcesOf(main).find((r) => String(r.name).includes(part)) : undefined;

  it("deploys one subscription-scoped module per other subscription, before the coordinator", () => {
    const access = byName("quiesce-subscription-{0}");
    if (!main || !access) return noCli();
    expect(access.copy.count).toBe("[length(variables('otherSubscriptions'))]");
    expect(access.subscriptionId).toBe("[variables('otherSubscriptions')[copyIndex()]]");
    expect(access.resourceGroup).toBeUndefined();
    const coordinator = resourcesOf(main).find((r) => String(r.name).includes("coordinator"));
    expect(JSON.stringify(coordinator?.dependsOn)).toContain("otherSubscriptionAccess");
    // The same role and assignments as the deployment's own subscription, nothing more.
    const nested = access.properties.template as Json;
    const role = resourcesOf(nested).find((r) => String(r.name).includes("control-plane-role"));
    const roleDef = resourcesOf(role?.properties.template as Json)[0];
    expect(roleDef?.type).toBe("Microsoft.Authorization/roleDefinitions");
    // Assignable only to this subscription's named groups.
    expect(roleDef?.properties.copy).toEqual([
      expect.objectContaining({
        name: "assignableScopes",
        input:
          "[format('{0}/resourceGroups/{1}', subscription().id, parameters('resourceGroupNames')[copyIndex('assignableScopes')])]",
      }),
    ]);
    const assignments = resourcesOf(nested).find((r) => r.copy);
    expect(assignments?.resourceGroup).toMatch(
      /^\[parameters\('resourceGroupNames'\)\[copyIndex\(\)\]\]$/,
    );
    const granted = resourcesOf(assignments?.properties.template as Json)[0];
    expect(granted?.type).toBe("Microsoft.Authorization/roleAssignments");
    // No role assigned at the subscription's own scope.
    expect(
      resourcesOf(nested).filter((r) => r.type === "Microsoft.Authorization/roleAssignments"),
    ).toEqual([]);
  });

  it("gives each other subscription its own topic and event subscription only with the events", () => {
    const events = byName("quiesce-subscription-events-");
    if (!main || !events) return noCli();
    expect(events.copy.count).toBe(
      "[length(if(variables('eventsOn'), variables('otherSubscriptions'), createArray()))]",
    );
    expect(JSON.stringify(events.dependsOn)).toContain("coordinator");
    expect(JSON.stringify(events.properties.template)).toContain(
      "Microsoft.EventGrid/systemTopics",
    );
  });
});
