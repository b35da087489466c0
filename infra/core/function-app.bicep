// The coordinator: a Function app on the Flex Consumption plan (Linux, Node 22), running as a
// user-assigned managed identity that reaches storage and Application Insights without keys.
// The app settings below are the coordinator's configuration names (functions/src/config.ts)
// plus the Functions host's own; test/infra/settings.test.ts keeps them in step.

import { notificationSecrets } from '../shared/notification-secrets.bicep'
import { withoutTrailingSlash } from '../shared/control-plane.bicep'

param location string
param tags object
param planName string
param functionAppName string

@description('Resource id of the user-assigned identity the app runs as.')
param identityId string
@description('Client id of that identity.')
param identityClientId string

param blobEndpoint string
param queueEndpoint string
param tableEndpoint string
param deploymentContainerName string

param applicationInsightsConnectionString string

@description('Entra tenant that issues the relays\' and operators\' tokens.')
param entraTenantId string
@description('Accepted token audiences, comma-separated: the coordinator app registration\'s identifier URI and/or client id.')
param entraAudience string

@description('Policy JSON (see README); empty keeps the coordinator\'s defaults.')
param policyJson string = ''
@description('NCRONTAB schedule of the sweep timer. Always set: the Functions host resolves the timer\'s %QUIESCE_SWEEP_SCHEDULE% from app settings, the coordinator\'s default does not reach it.')
param sweepSchedule string = '*/10 * * * * *'
@description('Prefix of the coordinator\'s table names.')
param tablePrefix string = 'quiesce'

@description('Key Vault holding the notification secrets (core/key-vault.bicep).')
param keyVaultName string
@description('Which notification secrets the vault holds (true: set the app setting as a Key Vault reference).')
param notificationSinks { teams: bool, slack: bool, webhookUrl: bool, webhookSecret: bool }

@description('Turn on the coordinator\'s Azure Resource Manager client (QUIESCE_CONTROL_PLANE): only when main.bicep granted the "Quiesce control plane" role on at least one resource group.')
param controlPlane bool = false
@description('Every subscription the deployment serves, comma-separated (QUIESCE_SUBSCRIPTIONS: main.bicep, controlPlaneSubscriptions); empty: not set.')
param subscriptions string = ''

@description('PREVIEW. Accept Event Grid deliveries of scheduled events and run the Resource Graph backstop (QUIESCE_CONTROL_PLANE_EVENTS): only with controlPlane, when main.bicep deployed the event subscription (core/control-plane-events.bicep).')
param controlPlaneEvents bool = false
@minValue(0)
@maxValue(86400)
@description('Seconds between the coordinator\'s Resource Graph queries (QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS); 0 turns the backstop off.')
param resourceGraphIntervalSeconds int = 300
@description('Subscription ids the backstop queries, comma-separated (QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS); empty: the coordinator\'s default, the subscriptions of the clusters\' VMs.')
param resourceGraphSubscriptions string = ''

@minValue(1)
@maxValue(1000)
@description('Upper bound on instances; the coordinator is stateless, so this only caps cost.')
param maximumInstanceCount int = 40
@allowed([512, 2048, 4096])
@description('Instance memory. 512 bills a quarter of the GB-s of 2048 and holds the coordinator (docs/deploy.md, cost); pass 2048 where a region does not offer 512.')
param instanceMemoryMB int = 512

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true // Linux: Flex Consumption has no Windows workers
  }
}

// Notification secrets as Key Vault references, resolved by the platform with the app's
// user-assigned identity (keyVaultReferenceIdentity below): the values never appear here.
var kvRef = '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName='
var notificationSettings = union(
  notificationSinks.teams ? { QUIESCE_TEAMS_WEBHOOK_URL: '${kvRef}${notificationSecrets.teams.secretName})' } : {},
  notificationSinks.slack ? { QUIESCE_SLACK_WEBHOOK_URL: '${kvRef}${notificationSecrets.slack.secretName})' } : {},
  notificationSinks.webhookUrl ? { QUIESCE_WEBHOOK_URL: '${kvRef}${notificationSecrets.webhookUrl.secretName})' } : {},
  notificationSinks.webhookSecret
    ? { QUIESCE_WEBHOOK_SECRET: '${kvRef}${notificationSecrets.webhookSecret.secretName})' }
    : {}
)

// The coordinator's ARM client: on only with the role main.bicep grants (controlPlane), against
// this cloud's Resource Manager (environment().resourceManager is e.g. 'https://management.azure.com/';
// the trailing slash is dropped). Absent otherwise, so the coordinator's default (off) applies.
var controlPlaneSettings = controlPlane
  ? {
      QUIESCE_CONTROL_PLANE: 'true'
      QUIESCE_ARM_ENDPOINT: withoutTrailingSlash(environment().resourceManager)
    }
  : {}

// Many subscriptions (main.bicep, controlPlaneSubscriptions): every one the deployment serves.
var subscriptionSettings = controlPlane && !empty(subscriptions) ? { QUIESCE_SUBSCRIPTIONS: subscriptions } : {}

// Scheduled events from the control plane (PREVIEW in Azure; docs/control-plane.md): on only with
// the control plane and the event subscription main.bicep deploys with it. Absent otherwise.
var controlPlaneEventsSettings = !(controlPlane && controlPlaneEvents) ? {} : union(
  {
    QUIESCE_CONTROL_PLANE_EVENTS: 'true'
    QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: string(resourceGraphIntervalSeconds)
  },
  empty(resourceGraphSubscriptions) ? {} : { QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS: resourceGraphSubscriptions }
)

// Settings the coordinator reads (names from functions/src/config.ts). Optional ones are only
// set when given, so the coordinator's own defaults apply otherwise.
var coordinatorSettings = union(
  notificationSettings,
  {
    QUIESCE_TABLE_ENDPOINT: tableEndpoint
    QUIESCE_STORAGE_CLIENT_ID: identityClientId
    QUIESCE_TABLE_PREFIX: tablePrefix
    QUIESCE_AUTH_MODE: 'entra'
    QUIESCE_ENTRA_TENANT_ID: entraTenantId
    QUIESCE_ENTRA_AUDIENCE: entraAudience
    QUIESCE_SWEEP_SCHEDULE: sweepSchedule
  },
  empty(policyJson) ? {} : { QUIESCE_POLICY: policyJson },
  controlPlaneSettings,
  controlPlaneEventsSettings,
  subscriptionSettings
)

// The Functions host's own settings: identity-based AzureWebJobsStorage (no connection string,
// shared keys are disabled) and Entra-authenticated Application Insights. Flex Consumption sets
// the runtime in functionAppConfig, so FUNCTIONS_WORKER_RUNTIME / FUNCTIONS_EXTENSION_VERSION
// must not be set here.
var hostSettings = {
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  AzureWebJobsStorage__blobServiceUri: blobEndpoint
  AzureWebJobsStorage__queueServiceUri: queueEndpoint
  AzureWebJobsStorage__tableServiceUri: tableEndpoint
  APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsightsConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  // Any DefaultAzureCredential in the app picks the user-assigned identity by this (the app has
  // no system-assigned one); the coordinator itself uses QUIESCE_STORAGE_CLIENT_ID.
  AZURE_CLIENT_ID: identityClientId
}

var appSettings = union(hostSettings, coordinatorSettings)

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: functionAppName
  location: location
  tags: union(tags, { 'azd-service-name': 'coordinator' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    keyVaultReferenceIdentity: identityId
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
      appSettings: [for setting in items(appSettings): { name: setting.key, value: setting.value }]
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${blobEndpoint}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
}

// Basic-auth publishing (FTP / SCM) off: deployments use Entra (azd, az functionapp deploy).
resource ftpPolicy 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'ftp'
  properties: { allow: false }
}

resource scmPolicy 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'scm'
  properties: { allow: false }
}

output functionAppName string = functionApp.name
output functionAppId string = functionApp.id
output defaultHostName string = functionApp.properties.defaultHostName
output coordinatorUrl string = 'https://${functionApp.properties.defaultHostName}'
