/**
 * Checks a JSON value against a schema of a vendored OpenAPI v3 excerpt: types, int32 range,
 * required fields, `allOf`/`$ref`, items and map values, and unknown fields (Kubernetes decodes
 * into typed structs: a field its schema does not declare is dropped, or refused under strict
 * field validation, so an answer carrying one is not what the API server sends). A `$ref` to a
 * schema the excerpt does not hold is not followed: what is under it is checked by the
 * kubernetes-models validators (test/kubernetes/schemas.ts) instead.
 */

type Schema = {
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  type?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
};

export interface OpenApiExcerpt {
  components: { schemas: Record<string, Schema> };
}

const REF = "#/components/schemas/";

export function schemaProblems(doc: OpenApiExcerpt, name: string, value: unknown): string[] {
  return check(doc, { $ref: `${REF}${name}` }, value, "$");
}

/** Whether the excerpt holds this schema (so a test cannot check against nothing). */
export const holds = (doc: OpenApiExcerpt, name: string) => name in doc.components.schemas;

function check(doc: OpenApiExcerpt, s: Schema, v: unknown, at: string): string[] {
  if (s.$ref) {
    const target = doc.components.schemas[s.$ref.slice(REF.length)];
    return target ? check(doc, target, v, at) : [];
  }
  const out = (s.allOf ?? []).flatMap((x) => check(doc, x, v, at));
  if (s.oneOf && !s.oneOf.some((x) => check(doc, x, v, at).length === 0))
    out.push(`${at}: matches none of oneOf`);
  switch (s.type) {
    case undefined:
      return out;
    case "string":
      return typeof v === "string" ? out : [...out, `${at}: not a string`];
    case "boolean":
      return typeof v === "boolean" ? out : [...out, `${at}: not a boolean`];
    case "integer": {
      if (typeof v !== "number" || !Number.isInteger(v)) return [...out, `${at}: not an integer`];
      const int32 = s.format === "int32" && (v < -(2 ** 31) || v >= 2 ** 31);
      return int32 ? [...out, `${at}: outside int32`] : out;
    }
    case "array":
      if (!Array.isArray(v)) return [...out, `${at}: not an array`];
      return [
        ...out,
        ...v.flatMap((x, i) => (s.items ? check(doc, s.items, x, `${at}[${i}]`) : [])),
      ];
    case "object": {
      if (typeof v !== "object" || v === null || Array.isArray(v))
        return [...out, `${at}: not an object`];
      const o = v as Record<string, unknown>;
      for (const r of s.required ?? []) if (!(r in o)) out.push(`${at}.${r}: required`);
      for (const [k, x] of Object.entries(o)) {
        const p = s.properties?.[k];
        if (p) out.push(...check(doc, p, x, `${at}.${k}`));
        else if (typeof s.additionalProperties === "object")
          out.push(...check(doc, s.additionalProperties, x, `${at}.${k}`));
        else if (s.properties) out.push(`${at}.${k}: not a field of this schema`);
      }
      return out;
    }
    default:
      return [...out, `${at}: schema type ${s.type} not supported here`];
  }
}
