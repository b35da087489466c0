import type { KubeAnswer } from "./types";

/**
 * `metav1.Status`, the body of every error (and of an accepted eviction), as kube-apiserver
 * writes it: `{kind: "Status", apiVersion: "v1", metadata: {}, status, message, reason, details?,
 * code}`. The reasons are Kubernetes' `StatusReason` values; the messages follow the API
 * server's wording for the same cases.
 */

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field?: string;
}

export function status(
  code: number,
  reason: string,
  message: string,
  details?: { name?: string; group?: string; kind?: string; causes?: readonly StatusCause[] },
): KubeAnswer {
  return {
    status: code,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: code >= 200 && code < 300 ? "Success" : "Failure",
      ...(code >= 200 && code < 300 ? {} : { message, reason }),
      ...(details ? { details } : {}),
      code,
    },
  };
}

export const ok = (body: unknown, code = 200): KubeAnswer => ({ status: code, body });

export const unauthorized = (): KubeAnswer => status(401, "Unauthorized", "Unauthorized");

export const notFound = (resource: string, name: string): KubeAnswer =>
  status(404, "NotFound", `${resource} "${name}" not found`, { name, kind: resource });

export const pathNotFound = (): KubeAnswer =>
  status(404, "NotFound", "the server could not find the requested resource");

export const badRequest = (message: string): KubeAnswer => status(400, "BadRequest", message);

export const methodNotAllowed = (method: string): KubeAnswer =>
  status(
    405,
    "MethodNotAllowed",
    `the server does not allow this method on the requested resource (${method})`,
  );

export const conflict = (resource: string, name: string): KubeAnswer =>
  status(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, kind: resource },
  );

export const unsupportedMediaType = (contentType: string): KubeAnswer =>
  status(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got ${contentType || "none"})`,
  );

export const invalid = (resource: string, name: string, message: string): KubeAnswer =>
  status(422, "Invalid", `${resource} "${name}" is invalid: ${message}`, { name, kind: resource });
