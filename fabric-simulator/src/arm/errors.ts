/**
 * What an ARM call answers: a status, a JSON body, headers. Every error body is ARM's
 * `{"error":{"code","message"}}` (plus `details` for the list acknowledge's multi-status); the
 * codes and wordings below are the ones Azure documents or clients have reported, noted per case.
 */

export interface ArmAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export const ok = (body: unknown, headers?: Record<string, string>): ArmAnswer => ({
  status: 200,
  body,
  ...(headers ? { headers } : {}),
});

export function armError(
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): ArmAnswer {
  return { status, body: { error: { code, message } }, ...(headers ? { headers } : {}) };
}

/** RFC 6750 challenge, in the form ARM sends it with every 401. */
function challenge(tenantId: string, description: string): Record<string, string> {
  return {
    "www-authenticate": `Bearer authorization_uri="https://login.microsoftonline.com/${tenantId}", error="invalid_token", error_description="${description}"`,
  };
}

/** 401s, with ARM's codes: a missing header, a header that is not `Bearer <token>`, a bad token. */
export const unauthenticated = {
  missing: (tenantId: string) =>
    armError(
      401,
      "AuthenticationFailed",
      "Authentication failed. The 'Authorization' header is missing.",
      challenge(tenantId, "The authentication failed because of missing 'Authorization' header."),
    ),
  malformed: (tenantId: string) =>
    armError(
      401,
      "AuthenticationFailedInvalidHeader",
      "Authentication failed. The 'Authorization' header is provided in an invalid format.",
      challenge(tenantId, "The authentication failed because of invalid 'Authorization' header."),
    ),
  invalid: (tenantId: string) =>
    armError(
      401,
      "InvalidAuthenticationToken",
      "The access token is invalid.",
      challenge(tenantId, "The access token is invalid."),
    ),
  expired: (tenantId: string, expiresOn: number, nowMs: number) =>
    armError(
      401,
      "ExpiredAuthenticationToken",
      `The access token expiry UTC time '${new Date(expiresOn * 1000).toUTCString()}' is earlier than current UTC time '${new Date(nowMs).toUTCString()}'.`,
      challenge(tenantId, "The access token has expired."),
    ),
  audience: (tenantId: string, resource: string) =>
    armError(
      401,
      "InvalidAuthenticationTokenAudience",
      `The access token has been obtained for wrong audience or resource '${resource}'. It should exactly match with one of the allowed audiences 'https://management.core.windows.net/','https://management.core.windows.net','https://management.azure.com/','https://management.azure.com'.`,
      challenge(tenantId, "The access token has been obtained for wrong audience."),
    ),
};

/** The audiences ARM accepts (as its InvalidAuthenticationTokenAudience message lists them). */
export const ARM_AUDIENCES = [
  "https://management.core.windows.net/",
  "https://management.core.windows.net",
  "https://management.azure.com/",
  "https://management.azure.com",
];

export function authorizationFailed(principalId: string, action: string, scope: string): ArmAnswer {
  return armError(
    403,
    "AuthorizationFailed",
    `The client '${principalId}' with object id '${principalId}' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
  );
}

/** ARM's own 404 for a resource its provider does not have. */
export function resourceNotFound(type: string, name: string, resourceGroup: string): ArmAnswer {
  return armError(
    404,
    "ResourceNotFound",
    `The Resource '${type}/${name}' under resource group '${resourceGroup}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
  );
}

export const missingApiVersion = () =>
  armError(
    400,
    "MissingApiVersionParameter",
    "The api-version query parameter (?api-version=) is required for all requests.",
  );

/**
 * An api-version the resource type does not have. For provider resource types ARM answers
 * NoRegisteredProviderFound (documented in "Resolve errors for resource provider registration",
 * learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-register-resource-provider);
 * InvalidApiVersionParameter is what ARM's own endpoints (resource groups, deployments) answer.
 */
export function unsupportedApiVersion(
  apiVersion: string,
  type: string,
  supported: readonly string[],
  location: string,
): ArmAnswer {
  return armError(
    400,
    "NoRegisteredProviderFound",
    `No registered resource provider found for location '${location}' and API version '${apiVersion}' for type '${type}'. The supported api-versions are '${supported.join(", ")}'. The supported locations are '${location}'.`,
  );
}

/** ARM's 429 (SubscriptionRequestsThrottled), with the Retry-After clients must honour. */
export function throttled(
  subscription: string,
  actor: string,
  retryAfterSeconds: number,
): ArmAnswer {
  return armError(
    429,
    "SubscriptionRequestsThrottled",
    `Number of 'read' requests for subscription '${subscription}' actor '${actor}' exceeded. Please try again after '${retryAfterSeconds}' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling for additional information.`,
    { "retry-after": String(retryAfterSeconds) },
  );
}

export const invalidContent = (why: string) =>
  armError(
    400,
    "InvalidRequestContent",
    `The request content was invalid and could not be deserialized: '${why}'.`,
  );
