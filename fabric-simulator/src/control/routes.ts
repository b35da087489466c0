import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import { BodyTooLarge, readBody, sendJson } from "../http/io";
import { scheduledEventsApiVersion } from "../imds/apiVersions";
import { refused } from "../model/controlResult";
import { armRoutes } from "./armRoutes";
import { eventGridRoutes } from "./eventGridRoutes";
import { kubernetesRoutes } from "./kubernetesRoutes";
import { patchRunRoutes } from "./patchRunRoutes";
import { type ControlTargets, objectBody, okValue, type Route } from "./route";

/**
 * The control API under `/control`: JSON in, JSON out, every body parsed by the same zod schemas
 * as the in-process API; errors are `{ error, issues? }` with 400 (bad input), 404 (no such
 * thing) or 409 (not possible in the event's current state).
 */

const fabricRoutes: Route[] = [
  { method: "GET", pattern: /^\/health$/, run: () => okValue({ ok: true }) },
  { method: "GET", pattern: /^\/clock$/, run: ({ engine }) => okValue(engine.clockView()) },
  {
    method: "POST",
    pattern: /^\/clock\/advance$/,
    run: async ({ engine, body }) => engine.advanceClock(await body()),
  },
  {
    method: "GET",
    pattern: /^\/topology$/,
    run: ({ engine, imdsUrl }) => {
      const s = engine.state();
      return okValue({
        groups: Object.values(s.groups),
        vms: Object.values(s.vms).map((vm) => ({ ...vm, imdsUrl: imdsUrl(vm.name) })),
      });
    },
  },
  {
    method: "POST",
    pattern: /^\/topology$/,
    run: async ({ engine, body, imdsUrl }) => {
      const r = engine.loadTopology(await body());
      if (!r.ok) return r;
      return okValue({
        groups: Object.values(r.value.groups),
        vms: Object.values(r.value.vms).map((vm) => ({ ...vm, imdsUrl: imdsUrl(vm.name) })),
      });
    },
  },
  {
    method: "POST",
    pattern: /^\/groups$/,
    status: 201,
    run: async ({ engine, body, imdsUrl }) => {
      const r = engine.addGroups(await body());
      if (!r.ok) return r;
      return okValue({ vms: r.value.map((name) => ({ name, imdsUrl: imdsUrl(name) })) });
    },
  },
  {
    method: "POST",
    pattern: /^\/groups\/([^/]+)\/incarnation-jump$/,
    run: async ({ engine, body, params }) => {
      const r = engine.jumpIncarnation({ ...(await objectBody(body)), group: params[0] });
      return r.ok ? okValue({ group: params[0], incarnation: r.value }) : r;
    },
  },
  {
    method: "GET",
    pattern: /^\/groups\/([^/]+)\/document$/,
    run: ({ engine, params, query }) => {
      const group = params[0] as string;
      if (!engine.state().groups[group]) return refused(404, `no group ${group}`);
      const v = scheduledEventsApiVersion(query.get("api-version") ?? "2020-07-01");
      if (!v) return refused(400, "unknown api-version");
      return okValue(engine.document(group, v));
    },
  },
  { method: "GET", pattern: /^\/events$/, run: ({ engine }) => okValue(engine.events()) },
  {
    method: "POST",
    pattern: /^\/events$/,
    status: 201,
    run: async ({ engine, body }) => engine.schedule(await body()),
  },
  {
    method: "GET",
    pattern: /^\/events\/([^/]+)$/,
    run: ({ engine, params }) => {
      const e = engine.event(params[0] as string);
      return e ? okValue(e) : refused(404, `no event ${params[0]}`);
    },
  },
  {
    method: "POST",
    pattern: /^\/events\/([^/]+)\/cancel$/,
    run: ({ engine, params }) => engine.cancel({ eventId: params[0] }),
  },
  {
    method: "POST",
    pattern: /^\/events\/([^/]+)\/start$/,
    run: ({ engine, params }) => engine.startNow({ eventId: params[0] }),
  },
  {
    method: "POST",
    pattern: /^\/events\/([^/]+)\/resources$/,
    run: async ({ engine, params, body }) =>
      engine.changeResources({ ...(await objectBody(body)), eventId: params[0] }),
  },
  {
    method: "POST",
    pattern: /^\/scaleSets\/([^/]+)\/deleteInstances$/,
    status: 201,
    run: async ({ engine, params, body }) =>
      engine.deleteInstances({ ...(await objectBody(body)), scaleSet: params[0] }),
  },
  { method: "GET", pattern: /^\/faults$/, run: ({ engine }) => okValue(engine.faults()) },
  {
    method: "POST",
    pattern: /^\/faults$/,
    status: 201,
    run: async ({ engine, body }) => engine.injectFault(await body()),
  },
  {
    method: "DELETE",
    pattern: /^\/faults$/,
    run: ({ engine, query }) => {
      const vm = query.get("vm");
      const r = engine.clearFaults(vm === null ? {} : { vm });
      return r.ok ? okValue({ cleared: r.value }) : r;
    },
  },
  {
    method: "GET",
    pattern: /^\/timeline$/,
    run: ({ engine, query }) => {
      const since = Number(query.get("since") ?? "0");
      if (!Number.isInteger(since) || since < 0) {
        return refused(400, "since must be a non-negative integer (a timeline seq)");
      }
      return okValue(engine.timeline(since));
    },
  },
  {
    method: "POST",
    pattern: /^\/reset$/,
    run: ({ engine }) => {
      engine.reset();
      return okValue({ ok: true });
    },
  },
];

const routes: Route[] = [
  ...fabricRoutes,
  ...armRoutes,
  ...patchRunRoutes,
  ...kubernetesRoutes,
  ...eventGridRoutes,
];

class BadJson extends Error {}

export async function handleControl(
  targets: ControlTargets,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  const matching = routes.filter((r) => r.pattern.test(path));
  const route = matching.find((r) => r.method === req.method);
  if (!route) {
    if (matching.length > 0) {
      return sendJson(
        res,
        405,
        { error: `method ${req.method} not allowed on /control${path}` },
        {
          allow: matching.map((r) => r.method).join(", "),
        },
      );
    }
    return sendJson(res, 404, { error: `no control route /control${path}` });
  }
  const params = (route.pattern.exec(path) ?? []).slice(1).map((p) => decodeURIComponent(p));
  const body = async (): Promise<unknown> => {
    const text = await readBody(req);
    if (text.trim() === "") return {};
    // Any JSON here: each command parses it with its own schema, as the in-process API does.
    const json = parseJsonWith(z.unknown(), text);
    if (!json.ok) throw new BadJson("body is not valid JSON");
    return json.value;
  };
  try {
    const r = await route.run({ ...targets, params, query, body });
    if (!r.ok) {
      const { status, message, issues } = r.error;
      return sendJson(res, status, { error: message, ...(issues ? { issues } : {}) });
    }
    return sendJson(res, route.status ?? 200, r.value);
  } catch (e) {
    if (e instanceof BadJson) return sendJson(res, 400, { error: e.message });
    if (e instanceof BodyTooLarge) return sendJson(res, 400, { error: e.message });
    throw e;
  }
}
