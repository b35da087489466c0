import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLarge, readBody } from "../../http/io";
import type { KubernetesEngine } from "../engine";
import {
  evictPod,
  getNode,
  getPod,
  type Listing,
  listNodes,
  listPods,
  patchNode,
} from "../handlers";
import { patchNodeStatus } from "../nodeStatus";
import { mediaType } from "../patch";
import { allows, forbiddenMessage } from "../rbac";
import { badRequest, methodNotAllowed, pathNotFound, status, unauthorized } from "../status";
import type { KubeAnswer, KubeWorld } from "../types";
import { type RequestInfo, requestInfo } from "./requests";

/**
 * The loopback Kubernetes API server: the gates in kube-apiserver's order (authentication 401,
 * authorization 403, then the resource: 404/405/the handler), every request logged with the
 * identity that made it. Serves exactly what the relay's drain uses (docs/fabric-simulator.md).
 */
export function kubernetesHandler(k8s: KubernetesEngine) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://kubernetes");
    const method = req.method ?? "GET";
    const info = requestInfo(method, url.pathname, url.searchParams);
    const auth = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
    const identity = auth ? k8s.identity((auth[1] as string).trim()) : undefined;
    let answer: KubeAnswer;
    try {
      if (!identity) answer = unauthorized();
      else if (!allows(identity.rules, info))
        answer = status(403, "Forbidden", forbiddenMessage(identity.user, info), {
          ...(info.name ? { name: info.name } : {}),
          ...(info.kind ? { kind: info.kind } : {}),
        });
      else answer = await serve(k8s, info, method, url.searchParams, req);
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e;
      answer = status(413, "RequestEntityTooLarge", e.message);
    }
    req.resume();
    // Logged before answering, so a client that has its answer also finds it in the log.
    k8s.record({
      method,
      path: url.pathname,
      query: url.search,
      verb: info.verb,
      ...(info.resource ? { resource: info.resource } : {}),
      ...(info.namespace ? { namespace: info.namespace } : {}),
      ...(info.name ? { name: info.name } : {}),
      user: identity?.user ?? null,
      status: answer.status,
    });
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "audit-id": randomUUID(),
    });
    res.end(text);
  };
}

const listing = (q: URLSearchParams): Listing => ({
  fieldSelector: q.get("fieldSelector"),
  labelSelector: q.get("labelSelector"),
  limit: q.get("limit"),
  continue: q.get("continue"),
});

async function serve(
  k8s: KubernetesEngine,
  info: RequestInfo,
  method: string,
  query: URLSearchParams,
  req: IncomingMessage,
): Promise<KubeAnswer> {
  const world = k8s.world();
  const now = k8s.now();
  const write = (r: { world: KubeWorld; answer: KubeAnswer }) => {
    k8s.set(r.world);
    return r.answer;
  };
  if (info.apiGroup !== "" || (info.kind !== "nodes" && info.kind !== "pods"))
    return pathNotFound();
  if (info.verb === "watch")
    return status(405, "MethodNotAllowed", "the stand-in serves no watch: list again instead");
  if (info.kind === "nodes" && info.subresource === "status") {
    if (info.namespace !== undefined) return pathNotFound();
    if (info.verb === "get") return getNode(world, info.name as string);
    if (info.verb !== "patch") return methodNotAllowed(method);
    const body = await readBody(req);
    const type = mediaType(req.headers["content-type"]);
    return write(patchNodeStatus(world, info.name as string, type, body));
  }
  if (info.kind === "nodes") {
    if (info.namespace !== undefined || info.subresource !== undefined) return pathNotFound();
    if (info.verb === "list") return listNodes(world, listing(query));
    if (info.verb === "get") return getNode(world, info.name as string);
    if (info.verb === "patch")
      return write(
        patchNode(
          world,
          info.name as string,
          mediaType(req.headers["content-type"]),
          await readBody(req),
        ),
      );
    return methodNotAllowed(method);
  }
  if (info.subresource === "eviction") {
    if (info.verb !== "create") return methodNotAllowed(method);
    if (info.namespace === undefined) return pathNotFound();
    return write(evictPod(world, info.namespace, info.name as string, await readBody(req), now));
  }
  if (info.subresource !== undefined) return pathNotFound();
  if (info.verb === "list") return listPods(world, info.namespace, listing(query), now);
  if (info.verb === "get") {
    if (info.namespace === undefined) return badRequest("a pod is read within its namespace");
    return getPod(world, info.namespace, info.name as string, now);
  }
  return methodNotAllowed(method);
}
