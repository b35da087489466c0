import { ManagedIdentityCredential } from "@azure/identity";
import { useAzureMonitor } from "@azure/monitor-opentelemetry";

/** What startAzureMonitor (azureMonitor.ts) loads on first use: the distro, registered. */
export function registerAzureMonitor(connectionString: string, clientId: string | undefined) {
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
}
