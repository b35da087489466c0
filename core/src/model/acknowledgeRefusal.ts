/**
 * What an ARM answer to the acknowledge call means, and what the control plane does next
 * (docs/control-plane.md "What each answer means"). The codes and statuses are the ones the
 * Maintenance RP's clients are written for (the Azure CLI's and Azure PowerShell's acknowledge
 * tests: test/contracts/fixtures/arm-acknowledge). Whatever the kind, the lease is released, so
 * relays may be elected again (one approval path at a time), and NotBefore stays the backstop.
 */

export type AcknowledgeRefusalKind =
  /** 404 (or a 207 detail) InvalidScheduledEventId / NotFound: the RP does not know the event. */
  | "eventNotFound"
  /** 405 NotImplemented: the RP does not acknowledge in the resource's region. */
  | "notSupportedInRegion"
  /** 400: the request itself is wrong (resource type, event id, api-version). */
  | "badRequest"
  /**
   * 403 RequestDisallowedByPolicy, or a policy token refused (PolicyTokenRefused): Azure Policy
   * (a Change Safety policy, docs/control-plane.md) will not let this write through now.
   */
  | "deniedByPolicy"
  /** 401, 403: the app's identity may not acknowledge on that scope. */
  | "notAuthorized"
  /** 404 with any other code: the resource named as the scope does not exist. */
  | "scopeNotFound"
  /** 409 (or a 207 detail Conflict): the event cannot be acknowledged in its state. */
  | "conflict"
  /** Any other refusal (4xx, or an error in a 2xx body). */
  | "refused"
  /** No usable answer: throttled, a server error, no answer, or one that did not parse. */
  | "transient";

export interface AcknowledgeRefusal {
  kind: AcknowledgeRefusalKind;
  /** No further attempt for this event: the same call cannot succeed within its notice. */
  giveUp: boolean;
  /** For history and the status API: what the answer means. */
  meaning: string;
}

const NOT_FOUND_CODES = new Set(["invalidscheduledeventid", "notfound"]);

export function acknowledgeRefusal(failure: { status: number; code: string }): AcknowledgeRefusal {
  const { status } = failure;
  const code = failure.code.toLowerCase();
  if (code === "requestdisallowedbypolicy" || code === "policytokenrefused")
    return {
      kind: "deniedByPolicy",
      // A policy that denies (a change freeze, a missing change reference) will not change its
      // mind within the notice; NotBefore stays the backstop.
      giveUp: true,
      meaning:
        'Azure Policy refused the write (a Change Safety policy: the policy token is missing or was refused; see docs/control-plane.md "Change Safety")',
    };
  if (status === 405 || code === "notimplemented")
    return {
      kind: "notSupportedInRegion",
      giveUp: true,
      meaning:
        "the Maintenance RP does not acknowledge scheduled events in this resource's region; that will not change within the event's notice",
    };
  if ((status === 404 || status === 207) && NOT_FOUND_CODES.has(code))
    return {
      kind: "eventNotFound",
      // The relays' IMDS still shows the event Scheduled (that is why it was elected): the RP's
      // copy may lag it, so a bounded retry (maxAttempts) can still succeed.
      giveUp: false,
      meaning:
        "the Maintenance RP does not know this event on that scope (its copy may lag IMDS, or the event already ended)",
    };
  if (status === 400)
    return {
      kind: "badRequest",
      giveUp: true,
      meaning:
        "ARM refused the request itself (resource type, event id or api-version); sending it again cannot help",
    };
  if (status === 401 || status === 403)
    return {
      kind: "notAuthorized",
      giveUp: true,
      meaning: "the app's identity may not acknowledge on that scope (see its role assignments)",
    };
  if (status === 404)
    return { kind: "scopeNotFound", giveUp: true, meaning: "ARM has no resource at that scope" };
  if (status === 409 || code === "conflict")
    return {
      kind: "conflict",
      giveUp: true,
      meaning: "the event cannot be acknowledged in its current state (it may have started)",
    };
  if (
    status === 0 ||
    status === 408 ||
    status === 429 ||
    status >= 500 ||
    code === "invalidresponse"
  )
    return {
      kind: "transient",
      giveUp: false,
      meaning: "no usable answer from ARM (busy, unreachable, or unreadable)",
    };
  return { kind: "refused", giveUp: true, meaning: "ARM refused the acknowledge" };
}
