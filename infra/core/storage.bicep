// One storage account for the coordinator's tables, the Functions host (leases, timers), the
// Flex Consumption deployment container and the relay artifacts. Shared-key access is disabled:
// every client (Functions host, coordinator, VMs, deployer) uses Entra ID.

param location string
param tags object
param storageAccountName string

@description('Blob container Flex Consumption deploys the app package from.')
param deploymentContainerName string = 'app-package'

@description('Blob container the relay artifacts are uploaded to and VMs download from.')
param relayContainerName string = 'relay'

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: storageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: { name: 'Standard_LRS' }
  properties: {
    accessTier: 'Hot'
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: { publicAccess: 'None' }
}

resource relayContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: relayContainerName
  properties: { publicAccess: 'None' }
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

output storageAccountName string = storage.name
output storageAccountId string = storage.id
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output queueEndpoint string = storage.properties.primaryEndpoints.queue
// Without the trailing slash primaryEndpoints has: QUIESCE_TABLE_ENDPOINT is a base URL.
output tableEndpoint string = 'https://${storage.name}.table.${environment().suffixes.storage}'
output deploymentContainerName string = deploymentContainer.name
output relayContainerName string = relayContainer.name
output relayContainerId string = relayContainer.id
