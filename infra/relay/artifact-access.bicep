// Lets VM identities download the relay artifacts: Storage Blob Data Reader on the relay
// container only. Deploy it to the resource group of the coordinator's storage account.

import { builtInRoles } from '../shared/roles.bicep'

param storageAccountName string
param relayContainerName string = 'relay'
@description('Principal (object) ids of the VMs\', scale sets\' or user-assigned identities.')
param principalIds string[]

resource relayContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' existing = {
  name: '${storageAccountName}/default/${relayContainerName}'
}

resource readers 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for principalId in principalIds: {
    name: guid(relayContainer.id, principalId, builtInRoles.storageBlobDataReader)
    scope: relayContainer
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', builtInRoles.storageBlobDataReader)
      principalId: principalId
      principalType: 'ServicePrincipal'
    }
  }
]
