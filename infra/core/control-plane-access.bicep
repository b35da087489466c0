// Assigns the "Quiesce control plane" role (core/control-plane-role.bicep), or the "Quiesce
// control-plane events" role (core/control-plane-events.bicep), to the coordinator's identity on one
// resource group: deployed once per named group, at that group's scope. Never at subscription scope.

targetScope = 'resourceGroup'

@description('Resource id of the "Quiesce control plane" role definition.')
param roleDefinitionId string

@description('Principal (object) id of the coordinator\'s user-assigned identity.')
param appPrincipalId string

@description('What the assignment is for (its description in Azure).')
param purpose string = 'Quiesce coordinator: scheduled-event approval, load balancer admin state, alert gates.'

resource assignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, appPrincipalId, roleDefinitionId)
  properties: {
    roleDefinitionId: roleDefinitionId
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    description: purpose
  }
}

output assignmentId string = assignment.id
