/**
 * In Azure: registers the global MeterProvider exporting to Application Insights, before the
 * coordinator takes its meter (app.ts awaits this before creating the coordinator). The resource
 * has local (key) auth off, so the exporter signs in with the app's user-assigned identity, named
 * in APPLICATIONINSIGHTS_AUTHENTICATION_STRING (infra/core/function-app.bicep). Request and Azure
 * SDK tracing stay off: the Functions host already records requests, and spans per table call
 * would cost the report path for nothing.
 *
 * The Azure Monitor distro (OpenTelemetry's SDK, its exporters, MSAL: most of the package) is
 * loaded here, on the first invocation, not when the host loads app.js, and not at all when no
 * connection string is set (e.g. locally): resolves false then. The package builds the dynamic
 * import into its own file (scripts/package/functions.mjs).
 */
export async function startAzureMonitor(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return false;
  const clientId = /(?:^|;)\s*ClientId=([^;]+)/i.exec(
    env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING ?? "",
  )?.[1];
  const { registerAzureMonitor } = await import("./azureMonitorSdk.js");
  registerAzureMonitor(connectionString, clientId);
  return true;
}
