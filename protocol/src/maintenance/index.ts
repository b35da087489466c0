export * from "./eventGrid";
export * from "./scheduledEvent";
