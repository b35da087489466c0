/** Azure's IMDS documents as they are served: Scheduled Events and instance metadata. */
export * from "./instanceMetadata";
export * from "./lenientDocument";
export * from "./scheduledEvents";
