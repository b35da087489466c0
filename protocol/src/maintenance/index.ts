export * from "./eventGrid";
export * from "./resourceGraph";
export * from "./scheduledEvent";
export * from "./webhookValidation";
