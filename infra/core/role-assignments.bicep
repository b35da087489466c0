// Data-plane roles for the coordinator's identity and the deployer, by role definition id
// (shared/roles.bicep; the table in docs/deploy.md lists the same). Scopes are as narrow as the
// platform allows: the relay container for the deployer, the account for the Functions host
// (it needs blobs, queues and tables of AzureWebJobsStorage plus the deployment container).

import { builtInRoles } from '../shared/roles.bicep'

param storageAccountName string
param relayContainerName string
param applicationInsightsName string

@description('Principal (object) id of the coordinator\'s user-assigned identity.')
param appPrincipalId string

@description('Principal id of whoever runs the deployment (azd sets AZURE_PRINCIPAL_ID); empty skips its role.')
param deployerPrincipalId string = ''
@allowed(['User', 'ServicePrincipal', 'Group'])
param deployerPrincipalType string = 'User'

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource relayContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' existing = {
  name: '${storageAccountName}/default/${relayContainerName}'
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

var appStorageRoles = [
  builtInRoles.storageTableDataContributor // coordinator tables (members, events, readiness, history)
  builtInRoles.storageBlobDataOwner // host leases and timers, deployment container
  builtInRoles.storageQueueDataContributor // host queues (AzureWebJobsStorage)
]

resource appStorage 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in appStorageRoles: {
    name: guid(storage.id, appPrincipalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource appTelemetry 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, appPrincipalId, builtInRoles.monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId(
      'Microsoft.Authorization/roleDefinitions',
      builtInRoles.monitoringMetricsPublisher
    )
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource deployerRelayUpload 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(deployerPrincipalId)) {
  name: guid(relayContainer.id, deployerPrincipalId, builtInRoles.storageBlobDataContributor)
  scope: relayContainer
  properties: {
    roleDefinitionId: subscriptionResourceId(
      'Microsoft.Authorization/roleDefinitions',
      builtInRoles.storageBlobDataContributor
    )
    principalId: deployerPrincipalId
    principalType: deployerPrincipalType
  }
}
