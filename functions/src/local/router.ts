import type { Route } from "../routes";

export type RouteMatch =
  | { route: Route; params: Record<string, string> }
  | { error: 400 | 404 | 405 };

/** Matches "/api/events/abc/hold" against the Functions route templates ("events/{eventId}/hold"). */
export function matchRoute(
  routes: readonly Route[],
  prefix: string,
  method: string,
  pathname: string,
): RouteMatch {
  const parts = pathname.split("/").filter((p) => p !== "");
  if (parts[0] !== prefix) return { error: 404 };
  const rest = parts.slice(1);
  let methodMismatch = false;
  for (const route of routes) {
    const template = route.route.split("/");
    if (template.length !== rest.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < template.length && ok; i++) {
      const t = template[i] as string;
      const seg = rest[i] as string;
      if (t.startsWith("{") && t.endsWith("}")) {
        try {
          params[t.slice(1, -1)] = decodeURIComponent(seg);
        } catch {
          return { error: 400 };
        }
      } else ok = t === seg;
    }
    if (!ok) continue;
    if (!route.methods.includes(method as Route["methods"][number])) {
      methodMismatch = true;
      continue;
    }
    return { route, params };
  }
  return { error: methodMismatch ? 405 : 404 };
}
