export type { Meter } from "@opentelemetry/api";
export { type ArmClient, createArmClient } from "./arm";
export * from "./auth";
export * from "./config";
export { type Coordinator, createCoordinator } from "./coordinator";
export * from "./handlers";
export { type AzuriteHandle, type AzuriteOptions, startAzurite } from "./local/azurite";
export { loadOrCreateLocalKeys } from "./local/keys";
export { matchRoute } from "./local/router";
export {
  type LocalCoordinator,
  type LocalCoordinatorOptions,
  startLocalCoordinator,
} from "./local/server";
export {
  type ReceivedMessage,
  type ReceiverSink,
  startWebhookReceiver,
  verifySignature,
  type WebhookReceiver,
} from "./local/webhookReceiver";
export { controlPlaneUnavailableNotification } from "./notify/controlPlaneDue";
export { coverageNotifications } from "./notify/coverageDue";
export { eventNotifications, imdsNotification, type Notification } from "./notify/due";
export { Sinks } from "./notify/sinks";
export { loadReport, processReport, type ReportOutcome } from "./pipeline/report";
export { createSweep, type SweepSummary } from "./pipeline/sweep";
export { ROUTE_PREFIX, ROUTES } from "./routes";
export * from "./store";
export { commitDecision } from "./store";
export { localMetrics, type Point, pointsNamed } from "./telemetry/local";
export { METRICS } from "./telemetry/metrics";
