import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import type { KubeObject } from "./kustomize";

/**
 * Kubernetes' published OpenAPI schemas, per version, from the npm package kubernetes-models
 * (tommy351/kubernetes-models-ts), installed twice under aliases: each release is generated from
 * one Kubernetes release's OpenAPI spec (with older releases' removed APIs merged in, which is why
 * rules.ts checks the API versions served separately). Its releases cover Kubernetes 1.33 (4.5.x)
 * and 1.36 (5.x); AKS's supported versions lie between and around them (docs/aks.md).
 *
 * Two checks per object and version:
 *  - the package's validator: types, required fields, enums, formats (quantity, int-or-string),
 *    compiled from the OpenAPI schema;
 *  - unknown fields: Kubernetes' schemas leave objects open, so a misspelt field passes them (the
 *    API server refuses it with kubectl's default --validate=strict). The package's TypeScript
 *    declarations list every field of every type, so the object is walked against them.
 */
export const SCHEMA_VERSIONS = [
  { kubernetes: "1.33", pkg: "kubernetes-models-1.33" },
  { kubernetes: "1.36", pkg: "kubernetes-models-1.36" },
] as const;
export type SchemaVersion = (typeof SCHEMA_VERSIONS)[number];

const ROOT = resolve(__dirname, "..", "..");

/** `apps/v1` DaemonSet -> `apps/v1/DaemonSet`; the core group `v1` -> `v1/ConfigMap`. */
const modelPath = (o: KubeObject) => `${o.apiVersion}/${o.kind}`;

type Model = new (data: unknown) => { validate(): void };

/** What is wrong with the object under this version's schema (nothing: an empty list). */
export async function schemaProblems(o: KubeObject, v: SchemaVersion): Promise<string[]> {
  const what = `${o.kind} ${o.metadata.name} (Kubernetes ${v.kubernetes})`;
  let Model: Model | undefined;
  try {
    const mod = (await import(`${v.pkg}/${modelPath(o)}`)) as Record<string, Model>;
    Model = mod[o.kind];
  } catch {
    Model = undefined;
  }
  if (!Model) return [`${what}: no schema for ${o.apiVersion} ${o.kind}`];
  const problems: string[] = [];
  try {
    new Model(structuredClone(o)).validate();
  } catch (e) {
    problems.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const file = join(ROOT, "node_modules", v.pkg, `${modelPath(o)}.d.ts`);
  for (const p of unknownFields(o, file, "")) problems.push(`${what}: ${p}`);
  return problems;
}

type Shape = {
  name: string;
  members: Map<string, ts.TypeNode>;
  file: string;
  source: ts.SourceFile;
};
const shapes = new Map<string, Shape | undefined>();

/** The one exported interface of a generated declaration file, with its imports resolved. */
function shapeOf(file: string): Shape | undefined {
  if (shapes.has(file)) return shapes.get(file);
  let shape: Shape | undefined;
  if (existsSync(file)) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
    const decl = source.statements.find(ts.isInterfaceDeclaration);
    if (decl) {
      const members = new Map<string, ts.TypeNode>();
      for (const m of decl.members)
        if (ts.isPropertySignature(m) && m.type && ts.isStringLiteral(m.name))
          members.set(m.name.text, m.type);
      shape = { name: decl.name.text.replace(/^I/, ""), members, file, source };
    }
  }
  shapes.set(file, shape);
  return shape;
}

/** The declaration file an imported type name comes from. */
function importedFile(shape: Shape, typeName: string): string | undefined {
  for (const s of shape.source.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    const bindings = s.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    if (!bindings.elements.some((e) => e.name.text === typeName)) continue;
    const spec = s.moduleSpecifier.text.replace(/\.js$/, "");
    if (spec.startsWith(".")) return `${resolve(dirname(shape.file), spec)}.d.ts`;
    return packageFile(dirname(shape.file), spec);
  }
  return undefined;
}

/** `@scope/pkg/sub/path` from node_modules above `from`, as its declaration file. */
function packageFile(from: string, spec: string): string | undefined {
  const parts = spec.split("/");
  const name = parts.slice(0, spec.startsWith("@") ? 2 : 1).join("/");
  const sub = parts.slice(name.split("/").length).join("/");
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, "node_modules", name);
    if (existsSync(pkg)) return join(pkg, `${sub}.d.ts`);
  }
  return undefined;
}

/** Fields the object has that its type (and every nested type) does not declare. */
function unknownFields(value: unknown, file: string, path: string): string[] {
  const shape = shapeOf(file);
  if (!shape || typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = path ? `${path}.${key}` : key;
    const type = shape.members.get(key);
    if (!type) return [`${at} is not a field of ${shape.name}`];
    return walk(v, type, shape, at);
  });
}

function walk(value: unknown, type: ts.TypeNode, shape: Shape, path: string): string[] {
  if (ts.isArrayTypeNode(type) && Array.isArray(value))
    return value.flatMap((item, i) => walk(item, type.elementType, shape, `${path}[${i}]`));
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
    const arg = type.typeArguments?.[0];
    if (type.typeName.text === "Array" && arg && Array.isArray(value))
      return value.flatMap((item, i) => walk(item, arg, shape, `${path}[${i}]`));
    const file = importedFile(shape, type.typeName.text);
    return file ? unknownFields(value, file, path) : [];
  }
  if (ts.isTypeLiteralNode(type) && typeof value === "object" && value !== null) {
    const index = type.members.find(ts.isIndexSignatureDeclaration);
    if (!index) return [];
    return Object.entries(value).flatMap(([k, v]) => walk(v, index.type, shape, `${path}.${k}`));
  }
  return [];
}
