/**
 * Azure's minimum notice per EventType (imds-scheduled-events.md), used when a scheduled event
 * does not give its own, and the description text real captures show.
 */
export function defaultNoticeSeconds(eventType: string): number {
  switch (eventType) {
    case "Freeze":
    case "Reboot":
      return 15 * 60;
    case "Redeploy":
      return 10 * 60;
    case "Preempt":
      return 30;
    case "Terminate":
      return 5 * 60;
    default:
      return 15 * 60;
  }
}

/** Freeze pauses for a few seconds; the rest have an unknown impact (-1). */
export function defaultDurationInSeconds(eventType: string): number {
  return eventType === "Freeze" ? 5 : -1;
}

export function defaultDescription(eventType: string, eventSource: string): string {
  if (eventSource === "User") {
    return eventType === "Redeploy"
      ? "Virtual machine is being redeployed as requested by authorized user."
      : "Virtual machine is being restarted as requested by authorized user.";
  }
  switch (eventType) {
    case "Preempt":
      return "Virtual machine is being evicted.";
    case "Terminate":
      return "Virtual machine is being deleted.";
    // No capture of one was found: the simulator's own words, not Azure's.
    case "SpotRebalanceRecommendation":
      return "Spot virtual machine is at an elevated risk of eviction.";
    default:
      return "Host server is undergoing maintenance.";
  }
}

/** Preempt and Terminate delete the VM when they complete. */
export function evicts(eventType: string): boolean {
  return eventType === "Preempt" || eventType === "Terminate";
}
