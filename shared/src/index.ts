export * from "./core";
export * from "./imds/instanceMetadata";
export * from "./imds/lenientDocument";
export * from "./imds/scheduledEvents";
export * from "./protocol/imdsProblem";
export * from "./protocol/names";
export * from "./protocol/v1";
export * from "./protocol/version";
