// What the relay installation needs, as types and functions other templates import: the
// relay's settings (names from relay/src/config.ts; test/infra/settings.test.ts checks them) and
// the Custom Script extension properties for Linux and Windows. The VM, scale-set and demo
// templates all build their extensions from here, so there is one definition to review.
//
// Everything is in protectedSettings: Azure encrypts it and never returns it in the VM model, and
// drain/recover commands may carry secrets. `managedIdentity` makes the extension download
// fileUris from blob storage with the VM's identity (no SAS tokens, no public container).

@export()
@description('Relay settings for one cluster; absent optional fields keep the relay\'s defaults.')
type RelayConfig = {
  @description('Coordinator base URL, e.g. https://func-quiesce-xyz.azurewebsites.net')
  coordinatorUrl: string
  @description('Cluster (policy unit) the VMs belong to.')
  cluster: string
  @description('Identifier URI or client id of the coordinator\'s app registration; tokens are requested for <audience>/.default.')
  entraAudience: string
  @description('Client id of a user-assigned identity to request coordinator tokens with; leave unset: the coordinator binds a token to its VM or scale set only for system-assigned identities (or tokens with xms_az_rid).')
  managedIdentityClientId: string?
  @description('Drain hook command (bash on Linux, PowerShell on Windows).')
  drainCommand: string?
  @description('Recover hook command, run once the event has left the document.')
  recoverCommand: string?
  @description('Local URL the drain event is POSTed to instead of a command.')
  drainUrl: string?
  @description('Local URL the recover event is POSTed to instead of a command.')
  recoverUrl: string?
  hookTimeoutSeconds: int?
  hookSafetyMarginSeconds: int?
  pollIntervalMs: int?
  @description('Everything except the StartRequests POST to IMDS (a safe first roll-out).')
  dryRun: bool?
  logLevel: ('debug' | 'info' | 'warn' | 'error')?
}

@export()
@description('Where the VMs download the relay from (uploaded by scripts/package/upload-relay.sh).')
type RelayArtifacts = {
  @description('Folder URL without trailing slash, e.g. https://st.blob.core.windows.net/relay/0.1.0')
  baseUrl: string
  @description('Client id of the user-assigned identity used to download; the system-assigned identity when absent.')
  downloadIdentityClientId: string?
}

@export()
@description('The relay settings object (relay setting names to values), without unset optional ones.')
func relaySettings(config RelayConfig) object =>
  toObject(
    filter(
      items({
        QUIESCE_COORDINATOR_URL: config.coordinatorUrl
        QUIESCE_CLUSTER: config.cluster
        QUIESCE_AUTH_MODE: 'managedIdentity'
        QUIESCE_ENTRA_AUDIENCE: config.entraAudience
        QUIESCE_MANAGED_IDENTITY_CLIENT_ID: config.?managedIdentityClientId
        QUIESCE_DRAIN_COMMAND: config.?drainCommand
        QUIESCE_RECOVER_COMMAND: config.?recoverCommand
        QUIESCE_DRAIN_URL: config.?drainUrl
        QUIESCE_RECOVER_URL: config.?recoverUrl
        QUIESCE_HOOK_TIMEOUT_SECONDS: config.?hookTimeoutSeconds
        QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: config.?hookSafetyMarginSeconds
        QUIESCE_POLL_INTERVAL_MS: config.?pollIntervalMs
        QUIESCE_DRY_RUN: config.?dryRun
        QUIESCE_LOG_LEVEL: config.?logLevel
      }),
      setting => setting.value != null
    ),
    setting => setting.key,
    setting => setting.value
  )

// {} selects the system-assigned identity; clientId a user-assigned one.
func downloadIdentity(artifacts RelayArtifacts) object =>
  empty(artifacts.?downloadIdentityClientId ?? '') ? {} : { clientId: artifacts.?downloadIdentityClientId }

@export()
@description('Properties of the Linux Custom Script extension (Microsoft.Azure.Extensions CustomScript 2.1) that installs the relay as a systemd service.')
func linuxExtensionProperties(config RelayConfig, artifacts RelayArtifacts, forceUpdateTag string) object => {
  publisher: 'Microsoft.Azure.Extensions'
  type: 'CustomScript'
  typeHandlerVersion: '2.1'
  autoUpgradeMinorVersion: true
  forceUpdateTag: forceUpdateTag
  protectedSettings: {
    fileUris: [
      '${artifacts.baseUrl}/install-extension.sh'
      '${artifacts.baseUrl}/quiesce-relay-linux.tar.gz'
    ]
    commandToExecute: 'bash install-extension.sh ${base64(string(relaySettings(config)))}'
    managedIdentity: downloadIdentity(artifacts)
  }
}

@export()
@description('Properties of the Windows Custom Script extension (Microsoft.Compute CustomScriptExtension 1.10) that installs the relay as a startup task.')
func windowsExtensionProperties(config RelayConfig, artifacts RelayArtifacts, forceUpdateTag string) object => {
  publisher: 'Microsoft.Compute'
  type: 'CustomScriptExtension'
  typeHandlerVersion: '1.10'
  autoUpgradeMinorVersion: true
  forceUpdateTag: forceUpdateTag
  protectedSettings: {
    fileUris: [
      '${artifacts.baseUrl}/install-extension.ps1'
      '${artifacts.baseUrl}/quiesce-relay-windows.zip'
    ]
    commandToExecute: 'powershell -NoProfile -ExecutionPolicy Bypass -File install-extension.ps1 -SettingsBase64 ${base64(string(relaySettings(config)))}'
    managedIdentity: downloadIdentity(artifacts)
  }
}

@export()
func extensionProperties(
  osType ('Linux' | 'Windows'),
  config RelayConfig,
  artifacts RelayArtifacts,
  forceUpdateTag string
) object =>
  osType == 'Windows'
    ? windowsExtensionProperties(config, artifacts, forceUpdateTag)
    : linuxExtensionProperties(config, artifacts, forceUpdateTag)
