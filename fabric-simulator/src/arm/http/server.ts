import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ArmEngine } from "../engine";
import { decide } from "./pipeline";
import { handleTokenRequest, TOKEN_PATH } from "./tokenEndpoint";

/**
 * The ARM listener: Azure Resource Manager's paths at the root, as on
 * https://management.azure.com, plus the managed-identity token endpoint at `/msi/token`. Every
 * ARM request goes into the request log with the identity that made it.
 */
export function armHandler(arm: ArmEngine) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://arm");
    if (url.pathname.toLowerCase() === TOKEN_PATH) {
      return handleTokenRequest(arm.identity, req, res, url.searchParams);
    }
    const method = req.method ?? "GET";
    const path = url.pathname.replace(/(.)\/+$/, "$1");
    const decided = await decide(arm, { method, path, query: url.searchParams, req });
    req.resume();
    const { status, body, headers } = decided.answer;
    // Logged before answering, so a client that has its answer also finds it in the log.
    arm.record({
      method,
      path,
      apiVersion: url.searchParams.get("api-version"),
      principalId: decided.principalId,
      status,
      ...(decided.fault ? { fault: true } : {}),
    });
    const text = body === undefined ? "" : JSON.stringify(body);
    // ARM stamps every answer with request ids; clients log them.
    const requestId = randomUUID();
    const clientRequestId = req.headers["x-ms-client-request-id"];
    res.writeHead(status, {
      ...(text ? { "content-type": "application/json; charset=utf-8" } : {}),
      "content-length": Buffer.byteLength(text),
      "x-ms-request-id": requestId,
      "x-ms-correlation-request-id": requestId,
      ...(typeof clientRequestId === "string" ? { "x-ms-client-request-id": clientRequestId } : {}),
      ...headers,
    });
    res.end(text);
  };
}
