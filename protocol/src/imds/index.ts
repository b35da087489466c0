/** Azure's IMDS documents as they are served (Scheduled Events and instance metadata), and what a relay could not read in them. */
export * from "./instanceMetadata";
export * from "./lenientDocument";
export * from "./problems";
export * from "./scheduledEvents";
