import type { IncomingMessage } from "node:http";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import { BodyTooLarge, readBody } from "../../http/io";
import type { ArmEngine } from "../engine";
import {
  ARM_AUDIENCES,
  type ArmAnswer,
  armError,
  authorizationFailed,
  invalidContent,
  missingApiVersion,
  unauthenticated,
  unsupportedApiVersion,
} from "../errors";
import { faultAnswer } from "../faults";
import { sameName } from "../ids";
import type { ArmCall } from "../resources/call";
import { matchRoute } from "./routes";

/**
 * One ARM request, checked in the order ARM applies its gates: authentication (401), the path
 * (404, 405), the api-version (400), the subscription (404), authorization (403), the resource
 * group (404), then the resource provider's own answer. Injected faults answer before any gate,
 * as a failing front door would. The order of the 400 and 401 checks is an assumption. A
 * scopeless route (Resource Graph) has no subscription or scope in its path to check: its
 * handler checks what the request names.
 */

export interface ArmRequestInfo {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly req: IncomingMessage;
}

export interface Decided {
  readonly answer: ArmAnswer;
  readonly principalId: string | null;
  readonly fault: boolean;
}

type Caller =
  | { ok: true; principalId: string }
  | { ok: false; answer: ArmAnswer; principalId: null | string };

function authenticate(arm: ArmEngine, header: string | undefined): Caller {
  const tenant = arm.identity.tenantId;
  if (header === undefined || header === "")
    return { ok: false, answer: unauthenticated.missing(tenant), principalId: null };
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!m) return { ok: false, answer: unauthenticated.malformed(tenant), principalId: null };
  const token = arm.identity.resolve(m[1] as string);
  if (!token) return { ok: false, answer: unauthenticated.invalid(tenant), principalId: null };
  const now = Date.now();
  if (token.expiresOn * 1000 <= now) {
    const answer = unauthenticated.expired(tenant, token.expiresOn, now);
    return { ok: false, answer, principalId: token.principalId };
  }
  if (!ARM_AUDIENCES.includes(token.resource)) {
    const answer = unauthenticated.audience(tenant, token.resource);
    return { ok: false, answer, principalId: token.principalId };
  }
  return { ok: true, principalId: token.principalId };
}

async function jsonBody(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; answer: ArmAnswer }> {
  let text: string;
  try {
    text = await readBody(req);
  } catch (e) {
    if (e instanceof BodyTooLarge) return { ok: false, answer: invalidContent("body too large") };
    throw e;
  }
  if (text.trim() === "") return { ok: true, value: undefined };
  const json = parseJsonWith(z.unknown(), text);
  return json.ok
    ? { ok: true, value: json.value }
    : { ok: false, answer: invalidContent("not JSON") };
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // not percent-encoded after all: no route will match it
  }
}

export async function decide(arm: ArmEngine, r: ArmRequestInfo): Promise<Decided> {
  const header = r.req.headers.authorization;
  const caller = authenticate(arm, header);
  const principalId = caller.principalId;
  const segments = r.path.split("/").slice(1).map(decodeSegment);
  const matched = matchRoute(segments);

  const fault = arm.takeFault(r.method, r.path);
  if (fault) {
    const topology = arm.topology();
    const answer = faultAnswer(fault, {
      tenantId: arm.identity.tenantId,
      subscriptionId: topology.subscriptionId,
      principalId,
      action: matched?.route.operations[r.method]?.action ?? `${r.method} ${r.path}`,
      path: r.path,
    });
    return { answer, principalId, fault: true };
  }
  const done = (answer: ArmAnswer): Decided => ({ answer, principalId, fault: false });
  if (!caller.ok) return done(caller.answer);

  if (!matched)
    return done(armError(404, "NotFound", `The simulator serves no ARM resource at '${r.path}'.`));
  const { route, params } = matched;
  const op = route.operations[r.method];
  if (!op) {
    const allow = Object.keys(route.operations).join(", ");
    return done(
      armError(
        405,
        "MethodNotAllowed",
        `The requested resource does not support http method '${r.method}'.`,
        { allow },
      ),
    );
  }

  const topology = arm.topology();
  const apiVersion = r.query.get("api-version");
  if (apiVersion === null || apiVersion === "") return done(missingApiVersion());
  if (!route.apiVersions.includes(apiVersion)) {
    return done(
      unsupportedApiVersion(apiVersion, route.type, route.apiVersions, topology.location),
    );
  }
  if (!route.scopeless && !sameName(params.subscriptionId ?? "", topology.subscriptionId)) {
    return done(
      armError(
        404,
        "SubscriptionNotFound",
        `The subscription '${params.subscriptionId}' could not be found.`,
      ),
    );
  }
  if (
    !route.scopeless &&
    !route.noRoleNeeded &&
    !arm.authorized(caller.principalId, r.path, op.action)
  ) {
    return done(authorizationFailed(caller.principalId, op.action, r.path));
  }
  if (
    params.resourceGroupName !== undefined &&
    !sameName(params.resourceGroupName, topology.resourceGroupName)
  ) {
    return done(
      armError(
        404,
        "ResourceGroupNotFound",
        `Resource group '${params.resourceGroupName}' could not be found.`,
      ),
    );
  }

  // Azure Policy's external evaluation (Change Safety) sees every write but the token's own.
  if (r.method !== "GET" && !route.noRoleNeeded) {
    const token = r.req.headers["x-ms-policy-external-evaluations"];
    const denied = arm.checkPolicyToken(
      r.method,
      r.path,
      apiVersion,
      typeof token === "string" ? token : undefined,
    );
    if (denied) return done(denied);
  }
  const ifMatch = r.req.headers["if-match"];
  const call: ArmCall = {
    arm,
    params,
    query: r.query,
    ...(ifMatch !== undefined ? { ifMatch } : {}),
    body: () => jsonBody(r.req),
    principalId: caller.principalId,
    path: r.path,
  };
  return done(await op.handle(call));
}
