// The custom role "Quiesce control plane": the actions in shared/control-plane.bicep, assignable
// only on the resource groups the operator named (main.bicep, controlPlaneResourceGroups). Defined
// at subscription scope (custom role definitions live there); core/control-plane-access.bicep
// assigns it to the coordinator's identity on each of those groups, and nowhere else.

import { controlPlaneActions } from '../shared/control-plane.bicep'

targetScope = 'subscription'

@description('azd environment name: part of the role name, which must be unique in the tenant.')
param environmentName string

@minLength(1)
@description('Resource groups (names in this subscription) holding the VMs, scale sets, availability sets and load balancers the coordinator may act on.')
param resourceGroupNames string[]

// Custom role names are unique per tenant: the suffix keeps two environments (or the same
// environment name in two subscriptions) apart, and stays the same on every re-deployment.
var suffix = take(uniqueString(subscription().id, environmentName), 6)

resource role 'Microsoft.Authorization/roleDefinitions@2022-04-01' = {
  name: guid(subscription().id, environmentName, 'quiesce-control-plane')
  properties: {
    roleName: 'Quiesce control plane (${environmentName} ${suffix})'
    description: 'Lets the Quiesce coordinator approve scheduled events, read VMs, scale-set instances, availability sets and NICs, set load balancer backend admin state, and read fired alerts, in the resource groups named at deployment.'
    type: 'CustomRole'
    permissions: [
      {
        actions: controlPlaneActions
        notActions: []
        dataActions: []
        notDataActions: []
      }
    ]
    assignableScopes: [for name in resourceGroupNames: '${subscription().id}/resourceGroups/${name}']
  }
}

output roleDefinitionId string = role.id
output roleName string = role.properties.roleName
