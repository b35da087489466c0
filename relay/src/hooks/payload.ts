import { isAdvisory, type ScheduledEvent, type VmIdentity } from "@quiesce/protocol/imds";
import type { HookKind } from "../decisions/state";

/**
 * What a hook receives: as JSON on stdin / as the POST body, and flattened into env variables.
 * This file is the hook environment's contract (docs/relay.md): the QUIESCE_* variables below are
 * what hook scripts read, not settings, and are named here and nowhere else.
 */
export interface HookPayload {
  hook: HookKind;
  attempt: number;
  /** When the relay stops waiting and records the hook as failed (timeout). */
  deadline: string;
  dryRun: boolean;
  /**
   * The event only advises (a Spot rebalance recommendation): nothing will approve it and nothing
   * happens at its NotBefore, so a drain may take its time. From the event's type when absent.
   */
  advisory?: boolean;
  vm: VmIdentity;
  event: ScheduledEvent;
}

/**
 * Environment variables cannot carry NUL (spawn refuses the whole hook), and IMDS text is not
 * ours to trust: a NUL becomes U+FFFD here, so an odd document never stops a drain. The exact
 * text stays in QUIESCE_EVENT_JSON and on stdin (JSON escapes it).
 */
export function hookEnvironment(p: HookPayload): Record<string, string> {
  const env = rawEnvironment(p);
  for (const [k, v] of Object.entries(env)) env[k] = v.replaceAll("\u0000", "\ufffd");
  return env;
}

function rawEnvironment(p: HookPayload): Record<string, string> {
  const e = p.event;
  return {
    QUIESCE_HOOK: p.hook,
    QUIESCE_HOOK_ATTEMPT: String(p.attempt),
    QUIESCE_HOOK_DEADLINE: p.deadline,
    QUIESCE_DRY_RUN: String(p.dryRun),
    QUIESCE_VM_NAME: p.vm.name,
    QUIESCE_EVENT_ID: e.EventId,
    QUIESCE_EVENT_TYPE: e.EventType,
    QUIESCE_EVENT_ADVISORY: String(p.advisory ?? isAdvisory(e)),
    QUIESCE_EVENT_STATUS: e.EventStatus,
    QUIESCE_EVENT_SOURCE: e.EventSource ?? "",
    QUIESCE_EVENT_NOT_BEFORE: e.NotBefore ?? "",
    QUIESCE_EVENT_DURATION_SECONDS:
      e.DurationInSeconds === undefined || e.DurationInSeconds === null
        ? ""
        : String(e.DurationInSeconds),
    QUIESCE_EVENT_RESOURCES: e.Resources.join(","),
    QUIESCE_EVENT_DESCRIPTION: e.Description ?? "",
    QUIESCE_EVENT_JSON: JSON.stringify(p),
  };
}
