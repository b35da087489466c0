import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ActionRule } from "../../functions/src/arm/actionRules";
import { bicepCli, repoRoot } from "./bicep";
import { runBicep } from "./bicepRun";

/**
 * infra/examples/alert-suppression: the alert processing rule a team deploys for Quiesce to keep
 * scoped to the VMs under maintenance, compiled by the real Bicep CLI (no error, no linter
 * warning), of the type and api-version the coordinator reads and writes (arm/actionRules.ts),
 * deployed disabled so that nothing is silenced until a VM is under maintenance.
 */
describe("the alert-suppression example", () => {
  const bicep = bicepCli();
  it("compiles to one actionRules@2021-08-08, disabled, removing all action groups, in the shape the coordinator reads", () => {
    if (!bicep) {
      console.warn("Bicep CLI not found (scripts/bicep/restore.sh): not compiled");
      return;
    }
    const r = runBicep(
      bicep,
      ["build", join("infra", "examples", "alert-suppression", "main.bicep"), "--stdout"],
      { cwd: repoRoot },
    );
    expect(r.stderr.split("\n").filter((l) => / : (Error|Warning) /.test(l))).toEqual([]);
    expect(r.status).toBe(0);
    const template = JSON.parse(r.stdout) as {
      parameters: Record<string, { defaultValue?: unknown }>;
      resources: Array<{
        type: string;
        apiVersion: string;
        location: string;
        properties: Record<string, unknown>;
      }>;
    };
    expect(template.resources).toHaveLength(1);
    const [rule] = template.resources;
    expect(rule).toMatchObject({
      type: "Microsoft.AlertsManagement/actionRules",
      apiVersion: "2021-08-08",
      location: "Global",
    });
    expect(rule?.properties.actions).toEqual([{ actionType: "RemoveAllActionGroups" }]);
    expect(template.parameters.enabled?.defaultValue).toBe(false);
    // With its expressions as placeholders, the resource parses as the coordinator reads a rule.
    const asRead = {
      location: rule?.location,
      properties: { ...rule?.properties, scopes: ["/x"], enabled: false, conditions: [] },
    };
    expect(ActionRule.safeParse(asRead).success).toBe(true);
  }, 120_000);
});
