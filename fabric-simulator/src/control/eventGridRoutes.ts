import type { EventGridSubscription } from "../eventGrid/subscription";
import { refused } from "../model/controlResult";
import { type ControlTargets, okValue, type Route, type RouteContext } from "./route";

/**
 * The control routes of the Event Grid system topic: create and delete webhook subscriptions,
 * read their handshake, counters and deliveries, inject delivery faults, pause and resume; and
 * the validation URL a subscription's validation event names (a GET there is the manual handshake).
 */

const PREFIX = "^\\/eventGrid\\/subscriptions\\/([^/]+)";

/** A route on one subscription: 404 when there is none of that name. */
function on(
  method: string,
  suffix: string,
  run: (s: EventGridSubscription, ctx: RouteContext) => ReturnType<Route["run"]>,
): Route {
  return {
    method,
    pattern: new RegExp(`${PREFIX}${suffix}$`),
    run: (ctx) => {
      const s = ctx.eventGrid.get(ctx.params[0] as string);
      return s ? run(s, ctx) : refused(404, `no event subscription ${ctx.params[0]}`);
    },
  };
}

const list = ({ eventGrid }: ControlTargets) => okValue(eventGrid.list());

export const eventGridRoutes: Route[] = [
  { method: "GET", pattern: /^\/eventGrid\/subscriptions$/, run: list },
  {
    method: "POST",
    pattern: /^\/eventGrid\/subscriptions$/,
    status: 201,
    run: async ({ eventGrid, body }) => {
      const r = eventGrid.subscribe(await body());
      return r.ok ? okValue(r.value.view()) : r;
    },
  },
  on("GET", "", (s) => okValue(s.view())),
  on("DELETE", "", (s, { eventGrid }) => okValue(eventGrid.remove(s.name))),
  on("GET", "\\/deliveries", (s) => okValue(s.deliveries())),
  on("POST", "\\/faults", async (s, { body }) => s.setFaults(await body())),
  on("POST", "\\/pause", (s) => okValue(s.pause())),
  on("POST", "\\/resume", (s) => okValue(s.resume())),
  on("GET", "\\/validate", (s, { query }) =>
    s.validateByUrl(query.get("code") ?? "")
      ? okValue({ validated: true, subscription: s.name })
      : refused(400, "not a validation code of this subscription (or its handshake failed)"),
  ),
];
