/**
 * Preempt (Spot eviction) and Terminate (scale-in) delete the VMs they name: nothing comes back to
 * recover, and they happen whatever we decide, so they neither wait for nor hold the cluster's
 * budget of events in flight.
 */
export const DELETES_VMS: ReadonlySet<string> = new Set(["Preempt", "Terminate"]);
