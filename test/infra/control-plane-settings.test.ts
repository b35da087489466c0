import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COORDINATOR_SETTING_FIELDS } from "@quiesce/functions";
import { describe, expect, it } from "vitest";
import type { Node } from "web-tree-sitter";
import { bicepCli, declaration, infraDir, parseBicep, properties } from "./bicep";
import { evaluateBicep } from "./bicepRun";
import { bicepString, descendants, file, inline } from "./controlPlaneBicep";

/** The app settings that switch the coordinator's ARM client on (docs/control-plane.md, Permissions). */

describe("QUIESCE_CONTROL_PLANE and QUIESCE_ARM_ENDPOINT in infra/core/function-app.bicep", () => {
  it("are set together, only under the controlPlane switch, which is off by default", async () => {
    const tree = await parseBicep(file("core", "function-app.bicep"));
    const settings = declaration(tree, "controlPlaneSettings");
    const ternary = descendants(settings, "ternary_expression")[0];
    expect(ternary?.childForFieldName("condition")?.text).toBe("controlPlane");
    expect(ternary?.childForFieldName("alternative")?.text).toBe("{}");
    const on = properties(ternary?.childForFieldName("consequence") as Node);
    expect(on.map((p) => p.key)).toEqual(["QUIESCE_CONTROL_PLANE", "QUIESCE_ARM_ENDPOINT"]);
    expect(on[0]?.value.text).toBe("'true'");
    expect(on[1]?.value.text).toBe("withoutTrailingSlash(environment().resourceManager)");
    // Nowhere else in the file, and the switch defaults to off.
    const everywhere = properties(tree.rootNode).filter((p) =>
      ["QUIESCE_CONTROL_PLANE", "QUIESCE_ARM_ENDPOINT"].includes(p.key),
    );
    expect(everywhere).toHaveLength(2);
    expect(declaration(tree, "controlPlane").text).toMatch(/param controlPlane bool = false$/);
    expect(declaration(tree, "coordinatorSettings").text).toContain("controlPlaneSettings");
    // main.bicep switches it with the list of named groups.
    const main = await parseBicep(file("main.bicep"));
    const coordinator = properties(declaration(main, "coordinator"));
    expect(coordinator.find((p) => p.key === "controlPlane")?.value.text).toBe("controlPlane");
    // 'true' is what the coordinator's schema reads as on.
    expect(COORDINATOR_SETTING_FIELDS.QUIESCE_CONTROL_PLANE.parse("true")).toBe(true);
  });

  it("follow the named groups, and the endpoint has no trailing slash (evaluated by the Bicep console)", async () => {
    const bicep = bicepCli();
    if (!bicep) {
      console.warn("Bicep CLI not found (scripts/bicep/restore.sh): expressions not evaluated");
      return;
    }
    const shared = await parseBicep(file("shared", "control-plane.bicep"));
    const main = await parseBicep(file("main.bicep"));
    const app = await parseBicep(file("core", "function-app.bicep"));
    // main.bicep: controlPlane = !empty(controlPlaneGroups), controlPlaneGroups = resourceGroupNames(param)
    const switchFor = (param: string) =>
      (declaration(main, "controlPlane").namedChild(1)?.text ?? "").replace(
        /\bcontrolPlaneGroups\b/,
        `(${inline(shared, "resourceGroupNames", { list: bicepString(param) })})`,
      );
    const inputs = ["", " , ,", "rg-web", " RG-Web, rg-lb ,rg-web,", "rg-a,rg-b,rg-c"];
    const consequence = descendants(
      declaration(app, "controlPlaneSettings"),
      "ternary_expression",
    )[0]?.childForFieldName("consequence") as Node;
    const endpoint = properties(consequence)
      .find((p) => p.key === "QUIESCE_ARM_ENDPOINT")
      ?.value.text.replace(/^withoutTrailingSlash\((.*)\)$/, "$1");
    const clouds = ["https://management.azure.com/", "https://management.usgovcloudapi.net"];
    const results = evaluateBicep(bicep, [
      ...inputs.map((i) => inline(shared, "resourceGroupNames", { list: bicepString(i) })),
      ...inputs.map(switchFor),
      ...clouds.map((cloud) =>
        inline(shared, "withoutTrailingSlash", {
          url: (endpoint ?? "").replace("environment().resourceManager", bicepString(cloud)),
        }),
      ),
    ]);
    expect(results.slice(0, inputs.length)).toEqual([
      [],
      [],
      ["rg-web"],
      ["rg-web", "rg-lb"],
      ["rg-a", "rg-b", "rg-c"],
    ]);
    expect(results.slice(inputs.length, 2 * inputs.length)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(results.slice(2 * inputs.length)).toEqual([
      "https://management.azure.com",
      "https://management.usgovcloudapi.net",
    ]);
    for (const url of results.slice(2 * inputs.length))
      expect(COORDINATOR_SETTING_FIELDS.QUIESCE_ARM_ENDPOINT.safeParse(url).success).toBe(true);
  }, 60_000);

  it("take the list from the azd environment (QUIESCE_CONTROL_PLANE_RESOURCE_GROUPS, empty by default)", () => {
    const parameters = JSON.parse(
      readFileSync(join(infraDir, "main.parameters.json"), "utf8"),
    ).parameters;
    expect(parameters.controlPlaneResourceGroups).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: azd's substitution syntax, as written in the file
      value: "${QUIESCE_CONTROL_PLANE_RESOURCE_GROUPS=}",
    });
  });
});
