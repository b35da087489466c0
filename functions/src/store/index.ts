export * from "./clusterStore";
export * from "./codec";
export * from "./keys";
export * from "./open";
export * from "./retry";
export * from "./rows";
export * from "./statusQueries";
export * from "./tables";
