import type { RequestAttributes } from "../rbac";

/**
 * What a request asks for, as the API server's request-info resolver reads a path:
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]` (and `/apis/{group}/{version}/…`),
 * with the verb from the method (GET on a collection is `list`, `?watch=true` is `watch`).
 */
export interface RequestInfo extends RequestAttributes {
  /** The resource without its subresource. */
  readonly kind?: string;
  readonly subresource?: string;
}

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const core = /^\/api\/v1(\/.*)?$/.exec(path);
  const grouped = /^\/apis\/([^/]+)\/[^/]+(\/.*)?$/.exec(path);
  const apiGroup = core ? "" : (grouped?.[1] ?? "");
  const rest = core ? core[1] : grouped?.[2];
  const verbOf = (named: boolean) => {
    switch (method) {
      case "GET":
        return query.get("watch") === "true" || query.get("watch") === "1"
          ? "watch"
          : named
            ? "get"
            : "list";
      case "POST":
        return "create";
      case "PUT":
        return "update";
      case "PATCH":
        return "patch";
      case "DELETE":
        return named ? "delete" : "deletecollection";
      default:
        return method.toLowerCase();
    }
  };
  if (rest === undefined) return { verb: method.toLowerCase(), apiGroup };
  let parts = rest
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  let namespace: string | undefined;
  if (parts[0] === "namespaces" && parts.length >= 3) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [kind, name, subresource] = parts;
  if (kind === undefined) return { verb: verbOf(false), apiGroup };
  return {
    verb: verbOf(name !== undefined),
    apiGroup,
    kind,
    resource: subresource ? `${kind}/${subresource}` : kind,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}
