export * from "./core";
export * from "./imds/instanceMetadata";
export * from "./imds/scheduledEvents";
export * from "./protocol/names";
export * from "./protocol/v1";
export * from "./protocol/version";
export * from "./result";
export * from "./status";
