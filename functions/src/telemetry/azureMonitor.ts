import { ManagedIdentityCredential } from "@azure/identity";
import { useAzureMonitor } from "@azure/monitor-opentelemetry";

/**
 * In Azure: registers the global MeterProvider exporting to Application Insights, before the
 * coordinator takes its meter. The resource has local (key) auth off, so the exporter signs in
 * with the app's user-assigned identity, named in APPLICATIONINSIGHTS_AUTHENTICATION_STRING
 * (infra/core/function-app.bicep). Request and Azure SDK tracing stay off: the Functions host
 * already records requests, and spans per table call would cost the report path for nothing.
 * Returns false (and does nothing) when no connection string is set, e.g. locally.
 */
export function startAzureMonitor(env: NodeJS.ProcessEnv = process.env): boolean {
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return false;
  const clientId = /(?:^|;)\s*ClientId=([^;]+)/i.exec(
    env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING ?? "",
  )?.[1];
  useAzureMonitor({
    azureMonitorExporterOptions: {
      connectionString,
      ...(clientId ? { credential: new ManagedIdentityCredential({ clientId }) } : {}),
    },
    enableLiveMetrics: false,
    instrumentationOptions: {
      http: { enabled: false },
      azureSdk: { enabled: false },
    },
  });
  return true;
}
