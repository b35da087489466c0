import { z } from "zod";
import type { FabricState, StartRequestOutcome } from "../../model/types";
import { type ArmAnswer, armError, invalidContent, ok, resourceNotFound } from "../errors";
import { availabilitySetId, sameName, scaleSetId } from "../ids";
import type { ArmCall } from "./call";
import { findPlainVm } from "./compute";

/**
 * The Maintenance RP's acknowledge of scheduled events (preview): `POST …/providers/
 * Microsoft.Compute/{virtualMachines|virtualMachineScaleSets|availabilitySets}/{name}/providers/
 * Microsoft.Maintenance/scheduledevents/{id}/acknowledge`, and the list form (2025-10-01-preview)
 * `POST …/scheduledevents` with `{"value":[ids]}`. It approves through the fabric's own approval
 * path, exactly as a StartRequests POST from a VM of the group would.
 */

export const SCOPE_TYPES = ["virtualMachines", "virtualMachineScaleSets", "availabilitySets"];

/**
 * The fabric groups whose events an ARM scope covers: the availability set of that name, every
 * placement group of the scale set (Azure scopes a scale set's events to the whole scale set), or
 * a standalone VM. A VM of an availability set is not a scope of its own here: its events belong
 * to the set (an assumption; Azure does not document VM-scoped acks for availability-set VMs).
 */
function scopeGroups(state: FabricState, type: string, name: string): string[] {
  const groups = Object.values(state.groups);
  if (sameName(type, "availabilitySets"))
    return groups
      .filter((g) => g.kind === "availabilitySet" && sameName(g.name, name))
      .map((g) => g.name);
  if (sameName(type, "virtualMachineScaleSets"))
    return groups
      .filter((g) => g.scaleSetName !== undefined && sameName(g.scaleSetName, name))
      .map((g) => g.name);
  const vm = findPlainVm(state, name);
  const g = vm ? state.groups[vm.group] : undefined;
  return g?.kind === "standalone" ? [g.name] : [];
}

type Scope = { groups: string[]; id: string } | ArmAnswer;

function resolveScope(call: ArmCall): Scope {
  const state = call.arm.fabric.state();
  const { scopeType, scopeName } = call.params as { scopeType: string; scopeName: string };
  const groups = scopeGroups(state, scopeType, scopeName);
  const type = SCOPE_TYPES.find((t) => sameName(t, scopeType)) ?? scopeType;
  if (groups.length === 0) {
    return resourceNotFound(
      `Microsoft.Compute/${type}`,
      scopeName,
      state.topology.resourceGroupName,
    );
  }
  const t = state.topology;
  const id =
    type === "availabilitySets"
      ? availabilitySetId(t, scopeName)
      : type === "virtualMachineScaleSets"
        ? scaleSetId(t, scopeName)
        : (findPlainVm(state, scopeName)?.resourceId ?? scopeName);
  return { groups, id };
}

const APPROVED = { value: "Successfully Approved" };

/*
 * The RP's refusals as its clients' tests and docs show them (test/contracts/fixtures/
 * arm-acknowledge/SOURCES.md): the single acknowledge's in Pascal case, as Approve-AzScheduledEvent's
 * help and the Azure CLI's response tests print them; the list form's in camel case.
 */
const NOT_FOUND = "Scheduled event not found";
const BAD_REQUEST =
  "Invalid resource type or parameters. The valid ResourceParentTypes are virtualMachines, virtualMachineScaleSets and availabilitySets. ScheduledEventId has to be GUID.";
const notSupportedInRegion = () =>
  armError(
    405,
    "NotImplemented",
    "This operation is not supported in the region of resource provided. Please check documentation for further details.",
  );
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Per event, what a refusal says (codes as the CLI's and Azure PowerShell's multi-status fixtures show them). */
function refusal(eventId: string, outcome: StartRequestOutcome) {
  return outcome === "alreadyStarted"
    ? { target: eventId, code: "Conflict", message: "The event cannot be acknowledged." }
    : outcome === "unknown"
      ? { target: eventId, code: "NotFound", message: NOT_FOUND }
      : undefined;
}

/** Whether the scope's VMs run in a region the control routes named as not acknowledging. */
function inUnsupportedRegion(call: ArmCall, groups: readonly string[]): boolean {
  const unsupported = call.arm.maintenance().unsupportedRegions.map((r) => r.toLowerCase());
  if (unsupported.length === 0) return false;
  const state = call.arm.fabric.state();
  return Object.values(state.vms).some(
    (vm) => groups.includes(vm.group) && unsupported.includes(vm.location.toLowerCase()),
  );
}

function acknowledge(call: ArmCall, eventIds: string[]) {
  const behaviour = call.arm.maintenance();
  if (!behaviour.supportedInRegion) return notSupportedInRegion();
  if (eventIds.some((id) => !GUID.test(id))) return armError(400, "BadRequest", BAD_REQUEST);
  const scope = resolveScope(call);
  if ("status" in scope) return scope;
  if (inUnsupportedRegion(call, scope.groups)) return notSupportedInRegion();
  // An RP whose copy lags IMDS knows none of the events: nothing is approved.
  if (!behaviour.knowsEvents) return eventIds.map((id) => refusal(id, "unknown"));
  const r = call.arm.fabric.acknowledge({
    groups: scope.groups,
    eventIds,
    scope: scope.id,
    principalId: call.principalId,
  });
  if (!r.ok) return armError(r.error.status, "BadRequest", r.error.message);
  return r.value.map((o) => refusal(o.eventId, o.outcome));
}

/**
 * 200 once the event may proceed; for an id that is not a Scheduled or Started event of the
 * scope, 404 InvalidScheduledEventId (or 207 with the error body, as the CLI's tests also model);
 * 409 Conflict for an event already Started (Azure's answer to that is not known: the status is
 * the simulator's choice, the code and wording follow the list form's fixtures).
 */
export function acknowledgeOne(call: ArmCall): ArmAnswer {
  const eventId = call.params.eventId as string;
  const r = acknowledge(call, [eventId]);
  if (!Array.isArray(r)) return r;
  const refused = r[0];
  if (!refused) return ok(APPROVED);
  if (refused.code === "Conflict") return armError(409, refused.code, refused.message);
  const status = call.arm.maintenance().unknownEventStatus;
  return status === 207
    ? {
        status,
        body: { Error: { Code: "InvalidScheduledEventId", Details: [{ Target: eventId }] } },
      }
    : { status, body: { Error: { Code: "InvalidScheduledEventId", Message: NOT_FOUND } } };
}

const ListBody = z.object({ value: z.array(z.string().min(1).max(128)).min(1).max(100) });

/**
 * All acknowledged: 200. None known: 404 InvalidScheduledEventId. Otherwise 207 with the
 * `ScheduledEventsListAcknowledgeError` body, one detail per refused id (the ids that could
 * proceed did).
 */
export async function acknowledgeList(call: ArmCall): Promise<ArmAnswer> {
  const body = await call.body();
  if (!body.ok) return body.answer;
  const parsed = ListBody.safeParse(body.value);
  if (!parsed.success) return invalidContent('expected {"value": ["<scheduled event id>", ...]}');
  const r = acknowledge(call, parsed.data.value);
  if (!Array.isArray(r)) return r;
  const details = r.filter((d) => d !== undefined);
  if (details.length === 0) return ok(APPROVED);
  if (details.length === r.length && details.every((d) => d.code === "NotFound"))
    return armError(404, "InvalidScheduledEventId", NOT_FOUND);
  return {
    status: 207,
    body: {
      error: {
        code: "MultiStatusResponse",
        message:
          "The operation returned different statuses for the Scheduled Events. Review each event's result for details.",
        details,
      },
    },
  };
}
