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
export { ROUTES } from "./routes";
export * from "./store";
