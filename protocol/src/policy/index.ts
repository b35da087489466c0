/** The operator's per-cluster policy (QUIESCE_POLICY): parsed by the coordinator, shown in status. */

export * from "./agentless";
export * from "./policy";
