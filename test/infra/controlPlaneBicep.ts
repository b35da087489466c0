import { join } from "node:path";
import type { Node, Tree } from "web-tree-sitter";
import { declaration, infraDir, parseBicep, stringLiteral } from "./bicep";

/** What the control-plane infra tests (control-plane*.test.ts) read the Bicep with. */

export const file = (...path: string[]) => join(infraDir, ...path);

export function descendants(node: Node, type: string): Node[] {
  return node.descendantsOfType(type).filter((n): n is Node => n !== null);
}

/** The plain string literals directly in a declaration's array (comments skipped). */
export async function actionsInBicep(): Promise<string[]> {
  const tree = await parseBicep(file("shared", "control-plane.bicep"));
  const array = descendants(declaration(tree, "controlPlaneActions"), "array")[0];
  if (!array) throw new Error("controlPlaneActions is not an array literal");
  return array.namedChildren
    .filter((n): n is Node => n?.type === "string")
    .map((n) => stringLiteral(n) ?? `(interpolated) ${n.text}`);
}

export const targetScope = (tree: Tree) =>
  descendants(tree.rootNode, "target_scope_assignment")[0]?.text.match(/'(\w+)'/)?.[1] ??
  "resourceGroup";

/** The body of a user-defined function with its parameters replaced by Bicep expressions. */
export function inline(tree: Tree, name: string, args: Record<string, string>): string {
  const fn = declaration(tree, name);
  const body = fn.namedChild(fn.namedChildCount - 1)?.text ?? "";
  return Object.entries(args).reduce(
    (text, [param, value]) => text.replace(new RegExp(`\\b${param}\\b`, "g"), `(${value})`),
    body,
  );
}

export const bicepString = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
