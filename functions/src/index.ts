export type { Meter } from "@opentelemetry/api";
export * from "./auth";
export * from "./config";
export { type Coordinator, createCoordinator } from "./coordinator";
export * from "./handlers";
export { type AzuriteHandle, startAzurite } from "./local/azurite";
export { loadOrCreateLocalKeys } from "./local/keys";
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
export { ROUTES } from "./routes";
export * from "./store";
export { localMetrics, type Point, pointsNamed } from "./telemetry/local";
export { METRICS } from "./telemetry/metrics";
