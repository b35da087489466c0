/** The operator's per-cluster policy (QUIESCE_POLICY): parsed by the coordinator, shown in status. */

export * from "./agentless";
export * from "./guestPatching";
export * from "./maintenanceSignal";
export * from "./maintenanceWindows";
export * from "./policy";
