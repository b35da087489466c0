// The coordinator's access in ONE other subscription (main.bicep, controlPlaneSubscriptions): the
// same least privilege as in the deployment's own subscription, confined to the resource groups
// named in this one. A "Quiesce control plane" custom role defined in this subscription and
// assignable only to those groups (core/control-plane-role.bicep), and one assignment per group
// (core/control-plane-access.bicep), never at subscription scope. Deployed at this subscription's
// scope, before the coordinator starts. docs/control-plane.md, "Many subscriptions".

targetScope = 'subscription'

@description('azd environment name: part of the role name and deployment names.')
param environmentName string

@minLength(1)
@description('Resource groups of this subscription the coordinator may act on (names).')
param resourceGroupNames string[]

@description('Principal (object) id of the coordinator\'s user-assigned identity (it lives in the deployment\'s subscription; a principal is the tenant\'s, so it can be granted roles here).')
param appPrincipalId string

module role 'control-plane-role.bicep' = {
  name: take('quiesce-control-plane-role-${environmentName}', 64)
  params: {
    environmentName: environmentName
    resourceGroupNames: resourceGroupNames
  }
}

module access 'control-plane-access.bicep' = [
  for name in resourceGroupNames: {
    name: take('quiesce-control-plane-${environmentName}', 64)
    scope: resourceGroup(name)
    params: {
      roleDefinitionId: role.outputs.roleDefinitionId
      appPrincipalId: appPrincipalId
    }
  }
]

output roleDefinitionId string = role.outputs.roleDefinitionId
