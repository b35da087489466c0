/** Published events: the scheduled events Azure publishes off the VM, as Event Grid delivers them and Resource Graph holds them. */
export * from "./eventGrid";
export * from "./patchRun";
export * from "./resourceGraph";
export * from "./scheduledEvent";
export * from "./webhookValidation";
