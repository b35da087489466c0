import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Language, type Node, Parser, type Tree } from "web-tree-sitter";

/** Reads infra/ Bicep with the tree-sitter Bicep grammar (the npm package's WebAssembly build). */

export const repoRoot = resolve(__dirname, "..", "..");
export const infraDir = join(repoRoot, "infra");

export function bicepFiles(dir = infraDir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) =>
      d.isDirectory()
        ? bicepFiles(join(dir, d.name))
        : d.name.endsWith(".bicep")
          ? [join(dir, d.name)]
          : [],
    )
    .sort();
}

export const rel = (path: string) => relative(repoRoot, path);

let parser: Promise<Parser> | undefined;
async function getParser(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init();
    const language = await Language.load(
      join(repoRoot, "node_modules", "tree-sitter-bicep", "tree-sitter-bicep.wasm"),
    );
    const p = new Parser();
    p.setLanguage(language);
    return p;
  })();
  return parser;
}

export async function parseBicep(path: string): Promise<Tree> {
  const tree = (await getParser()).parse(readFileSync(path, "utf8"));
  if (!tree) throw new Error(`tree-sitter returned no tree for ${rel(path)}`);
  return tree;
}

/** ERROR and MISSING nodes, as "line:column kind text" (1-based), for a readable failure. */
export function syntaxProblems(tree: Tree): string[] {
  const problems: string[] = [];
  const visit = (node: Node) => {
    if (node.isError || node.isMissing) {
      const at = `${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
      problems.push(
        `${at} ${node.isMissing ? `missing ${node.type}` : "error"} near ${JSON.stringify(node.text.slice(0, 60))}`,
      );
    }
    if (node.hasError || node.isMissing) for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  if (tree.rootNode.hasError && problems.length === 0) problems.push("the tree has an error");
  return problems;
}

function descendants(node: Node, type: string): Node[] {
  return node.descendantsOfType(type).filter((n): n is Node => n !== null);
}

/** The declaration (variable, function...) named `name` at the top of the file. */
export function declaration(tree: Tree, name: string): Node {
  for (const child of tree.rootNode.namedChildren) {
    if (!child) continue;
    const id = child.namedChildren.find((c) => c?.type === "identifier");
    if (id?.text === name) return child;
  }
  throw new Error(`no top-level declaration named ${name}`);
}

/** Key text of an object property (identifier or quoted string). */
function propertyKey(property: Node): string {
  const key = property.namedChild(0);
  if (!key) throw new Error(`object property without key: ${property.text}`);
  return key.type === "string" ? key.text.slice(1, -1) : key.text;
}

/**
 * Every object property under `node` (at any depth), with its value node. The app settings and
 * relay settings are built with union()/filter() of object literals, so all their keys appear
 * as properties somewhere under the declaration.
 */
export function properties(node: Node): { key: string; value: Node }[] {
  return descendants(node, "object_property").map((p) => {
    const value = p.namedChild(p.namedChildCount - 1);
    if (!value) throw new Error(`object property without value: ${p.text}`);
    return { key: propertyKey(p), value };
  });
}

/** The value of a plain string literal ('text', no interpolation), else undefined. */
export function stringLiteral(value: Node): string | undefined {
  if (value.type !== "string") return undefined;
  if (value.namedChildren.some((c) => c?.type === "interpolation")) return undefined;
  return value.text.slice(1, -1).replace(/\\'/g, "'");
}

/** Every plain string literal in the tree. */
export function stringLiterals(tree: Tree): string[] {
  return descendants(tree.rootNode, "string")
    .map(stringLiteral)
    .filter((s): s is string => s !== undefined);
}

/**
 * Properties of a declaration including those of the variables it refers to by name
 * (appSettings = union(hostSettings, coordinatorSettings)).
 */
export function propertiesDeep(
  tree: Tree,
  name: string,
  seen = new Set<string>(),
): { key: string; value: Node }[] {
  seen.add(name);
  const decl = declaration(tree, name);
  const topLevel = new Set(
    tree.rootNode.namedChildren
      .filter((c): c is Node => c?.type === "variable_declaration")
      .map((c) => c.namedChildren.find((n) => n?.type === "identifier")?.text),
  );
  const referenced = descendants(decl, "identifier")
    .map((n) => n.text)
    .filter((id) => id !== name && topLevel.has(id) && !seen.has(id));
  return [
    ...properties(decl),
    ...[...new Set(referenced)].flatMap((id) => propertiesDeep(tree, id, seen)),
  ];
}

/**
 * The Bicep CLI that scripts/bicep/find-bicep.sh finds (the restored .tools/bicep first), or
 * undefined without one or when it is only `az bicep` (no console, no --pattern).
 */
export function bicepCli(): string | undefined {
  const found = spawnSync("bash", [join(repoRoot, "scripts", "bicep", "find-bicep.sh")], {
    encoding: "utf8",
  });
  const command = found.stdout.trim();
  return found.status === 0 && command && command !== "az bicep" ? command : undefined;
}
