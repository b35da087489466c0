import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bicepCli, bicepFiles, declaration, parseBicep, properties, rel, repoRoot } from "./bicep";
import { actionsInBicep, descendants, file, targetScope } from "./controlPlaneBicep";
import { compile } from "./eventsBicep";

/**
 * The coordinator's Azure Resource Manager access (docs/control-plane.md, Permissions): a custom
 * role with exactly the actions its ARM client uses, assigned to the app's identity on the
 * resource groups the operator names and on nothing else, and the client switched on
 * (QUIESCE_CONTROL_PLANE) only when such a group was named.
 */

// One per operation of the coordinator's ARM client; a change here is a change of what the
// coordinator may do in the operator's subscription, so it is spelled out, not derived.
const EXPECTED_ACTIONS = [
  // approve a scheduled event (Maintenance RP, preview API)
  "Microsoft.Maintenance/scheduledevents/acknowledge/action",
  // read VMs, their availability sets, Uniform scale-set instances and NICs
  "Microsoft.Compute/virtualMachines/read",
  "Microsoft.Compute/availabilitySets/read",
  "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read",
  "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces/read",
  "Microsoft.Network/networkInterfaces/read",
  // set a backend address's adminState: GET and PUT of the backend pool
  "Microsoft.Network/loadBalancers/backendAddressPools/read",
  "Microsoft.Network/loadBalancers/backendAddressPools/write",
  // alert-rule gates: list fired alerts
  "Microsoft.AlertsManagement/alerts/read",
];

describe("the Quiesce control plane role (infra/shared/control-plane.bicep)", () => {
  it("has exactly the actions of the coordinator's ARM client, each named", async () => {
    const actions = await actionsInBicep();
    expect(actions).toEqual(EXPECTED_ACTIONS);
    expect(new Set(actions).size).toBe(actions.length);
  });

  it("has no wildcard and no action beyond read, write and the acknowledge action", async () => {
    for (const action of await actionsInBicep()) {
      expect(action, action).not.toContain("*");
      expect(action, action).toMatch(/^Microsoft\.[A-Za-z]+(\/[A-Za-z]+)+$/);
      expect(action, action).toMatch(/\/(read|write|acknowledge\/action)$/);
    }
    // The only write: a load balancer backend pool (admin state).
    expect((await actionsInBicep()).filter((a) => !a.endsWith("/read"))).toEqual([
      "Microsoft.Maintenance/scheduledevents/acknowledge/action",
      "Microsoft.Network/loadBalancers/backendAddressPools/write",
    ]);
  });

  it("is the role core/control-plane-role.bicep defines, assignable only to the named resource groups", async () => {
    const tree = await parseBicep(file("core", "control-plane-role.bicep"));
    expect(targetScope(tree)).toBe("subscription"); // where custom role definitions live
    const role = declaration(tree, "role");
    expect(role.text).toContain("'Microsoft.Authorization/roleDefinitions@");
    const props = properties(role);
    expect(props.find((p) => p.key === "actions")?.value.text).toBe("controlPlaneActions");
    expect(props.find((p) => p.key === "type")?.value.text).toBe("'CustomRole'");
    for (const key of ["notActions", "dataActions", "notDataActions"])
      expect(props.find((p) => p.key === key)?.value.text, key).toBe("[]");
    // One scope per named group, each a resource group of this subscription: never "/" or the
    // subscription itself.
    const scopes = props.find((p) => p.key === "assignableScopes")?.value;
    expect(scopes?.type).toBe("for_statement"); // [for name in resourceGroupNames: …]
    const loop = scopes;
    expect(loop?.namedChild(1)?.text).toBe("resourceGroupNames");
    expect(loop?.namedChild(loop.namedChildCount - 1)?.text).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep's interpolation, as written in the file
      "'${subscription().id}/resourceGroups/${name}'",
    );
    const names = declaration(tree, "resourceGroupNames");
    expect(names.text).toBe("param resourceGroupNames string[]");
  });

  it("is listed action by action in docs/control-plane.md", () => {
    const doc = readFileSync(join(repoRoot, "docs", "control-plane.md"), "utf8");
    const table = doc
      .split("<!-- control-plane-actions:start -->")[1]
      ?.split("<!-- control-plane-actions:end -->")[0];
    if (!table) throw new Error("docs/control-plane.md has no control-plane-actions table");
    const documented = table
      .split("\n")
      .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
      .slice(1)
      .map((line) => line.split("|")[1]?.trim().replace(/`/g, ""));
    expect(documented).toEqual(EXPECTED_ACTIONS);
  });
});

describe("the role's assignments", () => {
  it("go to the coordinator's identity on each named resource group, at that group's scope", async () => {
    const main = await parseBicep(file("main.bicep"));
    const access = declaration(main, "controlPlaneAccess");
    expect(access.text).toContain("'core/control-plane-access.bicep'");
    const loop = descendants(access, "for_statement")[0];
    expect(loop?.namedChild(1)?.text).toBe("controlPlaneGroups");
    const props = properties(access);
    expect(props.find((p) => p.key === "scope")?.value.text).toBe("resourceGroup(name)");
    expect(props.find((p) => p.key === "appPrincipalId")?.value.text).toBe(
      "identity.outputs.principalId",
    );
    expect(props.find((p) => p.key === "roleDefinitionId")?.value.text).toBe(
      "controlPlaneRole!.outputs.roleDefinitionId",
    );

    const module = await parseBicep(file("core", "control-plane-access.bicep"));
    expect(targetScope(module)).toBe("resourceGroup");
    const assignment = declaration(module, "assignment");
    expect(assignment.text).toContain("'Microsoft.Authorization/roleAssignments@");
    const assignmentProps = properties(assignment).map((p) => p.key);
    expect(assignmentProps).not.toContain("scope"); // the module's resource group itself
    // A stable name: the same group, principal and role give the same assignment on re-deploy.
    expect(properties(assignment).find((p) => p.key === "name")?.value.text).toBe(
      "guid(resourceGroup().id, appPrincipalId, roleDefinitionId)",
    );
  });

  it("are never made at subscription scope (no role assignment in a subscription-scope file)", async () => {
    for (const path of bicepFiles()) {
      const tree = await parseBicep(path);
      if (targetScope(tree) !== "subscription") continue;
      const assignments = descendants(tree.rootNode, "resource_declaration").filter((r) =>
        r.text.includes("'Microsoft.Authorization/roleAssignments@"),
      );
      expect(
        assignments.map((r) => r.text.slice(0, 80)),
        rel(path),
      ).toEqual([]);
    }
  });

  it("exist only when resource groups are named: the role module is conditional", async () => {
    const main = await parseBicep(file("main.bicep"));
    const role = declaration(main, "controlPlaneRole");
    expect(descendants(role, "if_statement")[0]?.namedChild(0)?.text).toBe("(controlPlane)");
    expect(declaration(main, "controlPlane").namedChild(1)?.text).toBe(
      "!empty(controlPlaneGroups)",
    );
    expect(declaration(main, "controlPlaneGroups").namedChild(1)?.text).toBe(
      "resourceGroupNames(controlPlaneResourceGroups)",
    );
    // Nothing by default.
    expect(declaration(main, "controlPlaneResourceGroups").text).toMatch(/string = ''$/);
  });

  it("compile to nested deployments into the named groups (when the Bicep CLI is restored)", () => {
    const bicep = bicepCli();
    if (!bicep) {
      console.warn("Bicep CLI not found (scripts/bicep/restore.sh): compiled template not checked");
      return;
    }
    const template = compile(bicep, "main.bicep");
    const resources: Record<string, unknown>[] = Array.isArray(template.resources)
      ? template.resources
      : Object.values(template.resources);
    const byName = (n: string) =>
      // biome-ignore lint/suspicious/noExplicitAny: the compiled template is inspected field by field
      resources.find((r) => String(r.name).includes(n)) as Record<string, any>;
    const role = byName("control-plane-role");
    expect(role.condition).toBe("[variables('controlPlane')]");
    const access = byName("quiesce-control-plane-");
    expect(access.copy.count).toBe("[length(variables('controlPlaneGroups'))]");
    expect(access.resourceGroup).toBe("[variables('controlPlaneGroups')[copyIndex()]]");
    expect(access).not.toHaveProperty("subscriptionId");
    expect(access).not.toHaveProperty("scope");
    const nested = access.properties.template;
    expect(nested.$schema).toContain("/deploymentTemplate.json"); // resource-group scope
    const assignments = (
      Array.isArray(nested.resources) ? nested.resources : Object.values(nested.resources)
    ) as Record<string, unknown>[];
    expect(assignments.map((r) => r.type)).toEqual(["Microsoft.Authorization/roleAssignments"]);
    expect(assignments[0]).not.toHaveProperty("scope");
    // The role's actions, as compiled into the role module.
    const roleTemplate = role.properties.template;
    expect(JSON.stringify(roleTemplate)).toContain(JSON.stringify(EXPECTED_ACTIONS));
  }, 120_000);
});
