import type { AdminState } from "@quiesce/core";
import type { Result } from "@quiesce/protocol";
import {
  type ArmClient,
  type ArmError,
  acknowledgeScheduledEvent,
  alertRuleFiring,
  backendMemberships,
  createScopeResolver,
  type ObservedAdminState,
  readAdminState,
  scopePath,
  setAdminState,
} from "../arm";
import { withPolicyToken } from "../arm/policyToken";
import { queryScheduledEvents } from "../arm/resourceGraph";
import type { ArmOutcome, ArmProblem, ControlPlanePorts } from "./ports";

/**
 * The control plane's ports over the ARM client (functions/src/arm). `policyToken`: every write
 * first acquires an Azure Policy token for itself (Change Safety, arm/policyToken.ts), naming
 * the event's change record when it has one.
 */
export function createArmPorts(
  arm: ArmClient,
  opts: { policyToken?: boolean } = {},
): ControlPlanePorts {
  const scopes = createScopeResolver(arm);
  const writer = (changeReference?: string) =>
    opts.policyToken ? withPolicyToken(arm, changeReference) : arm;
  return {
    async acknowledge(vm, eventId, changeReference) {
      const scope = await scopes.resolve(vm);
      if (!scope.ok) return failed(scope.error);
      const acked = await acknowledgeScheduledEvent(writer(changeReference), scope.value, eventId);
      return acked.ok
        ? { ok: true, value: { scope: scopePath(scope.value) } }
        : failed(acked.error);
    },
    async backendAddresses(vm) {
      return mapped(await backendMemberships(arm, vm), (ms) => ms);
    },
    async adminState(a) {
      return mapped(await readAdminState(arm, a.poolId, a.ipConfigurationId), (r) =>
        asAdminState(r.state),
      );
    },
    async setAdminState(a, state, onlyIf, changeReference) {
      const set = await setAdminState(
        writer(changeReference),
        a.poolId,
        a.ipConfigurationId,
        state,
        onlyIf ? { onlyIf } : undefined,
      );
      return mapped(set, (c) => ({ before: asAdminState(c.before), after: asAdminState(c.after) }));
    },
    async alertFiring(alertRuleId) {
      return mapped(await alertRuleFiring(arm, alertRuleId), (r) => r.firing);
    },
    async scheduledEvents(subscriptions) {
      const read = await queryScheduledEvents(arm, subscriptions);
      if (read.ok) return read;
      // Only this port passes the wait on: a throttled backstop skips runs until the quota is back.
      const { retryAfterMs } = read.error;
      return {
        ok: false,
        error: { ...problem(read.error), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
      };
    },
  };
}

/**
 * `Drain`, which newer Network SDKs list but Azure does not document as settable, takes no new
 * connections like `Down`: recorded as Down, so Quiesce neither sets nor restores such an address.
 */
const asAdminState = (s: ObservedAdminState): AdminState => (s === "Drain" ? "Down" : s);

const problem = (e: ArmError): ArmProblem => ({
  status: e.status,
  code: e.code,
  message: e.message,
});
const failed = (e: ArmError): { ok: false; error: ArmProblem } => ({
  ok: false,
  error: problem(e),
});

function mapped<A, B>(r: Result<A, ArmError>, f: (a: A) => B): ArmOutcome<B> {
  return r.ok ? { ok: true, value: f(r.value) } : failed(r.error);
}
