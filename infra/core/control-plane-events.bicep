// Control-plane events (PREVIEW in Azure; main.bicep, controlPlaneEvents): the maintenance system
// topic (unless the operator names an existing one), the event subscription to the coordinator's
// `maintenanceEvents` function, and the reads the Resource Graph backstop needs, as a custom role
// "Quiesce control-plane events" assigned on the control plane's resource groups only (never the
// subscription). docs/control-plane.md, "Deploying the control-plane events (preview)".

import { controlPlaneEventsActions } from '../shared/control-plane-events.bicep'

targetScope = 'subscription'

@description('azd environment name: part of the role, topic and event subscription names.')
param environmentName string

@minLength(1)
@description('The control plane\'s resource groups (main.bicep, controlPlaneResourceGroups).')
param resourceGroupNames string[]

@description('Principal (object) id of the coordinator\'s user-assigned identity.')
param appPrincipalId string

@description('Resource group of the coordinator, where a new system topic goes.')
param coordinatorResourceGroup string

@description('Resource id of the coordinator\'s Function app.')
param functionAppId string

@description('Resource id of an existing Microsoft.ResourceNotifications.MaintenanceResources system topic of this subscription to subscribe to; empty: create one.')
param maintenanceTopicId string = ''

param tags object = {}

var createTopic = empty(maintenanceTopicId)
// Padded, so that no index below is out of range whatever the parameter holds.
var topicPath = concat(split(maintenanceTopicId, '/'), ['', '', '', '', '', '', '', '', ''])
// Event Grid allows one system topic per source, and the source is this subscription: an existing
// topic must be this subscription's (Event Grid creates a system topic in its source's subscription).
var existingTopicValid = length(split(maintenanceTopicId, '/')) == 9 && toLower(topicPath[2]) == toLower(subscription().subscriptionId) && toLower('${topicPath[1]}/${topicPath[3]}/${topicPath[5]}/${topicPath[6]}/${topicPath[7]}') == 'subscriptions/resourcegroups/providers/microsoft.eventgrid/systemtopics' && !empty(topicPath[4]) && !empty(topicPath[8])
var topicResourceGroup = createTopic ? coordinatorResourceGroup : (existingTopicValid ? topicPath[4] : fail('maintenanceTopicId must be the resource id of a Microsoft.EventGrid/systemTopics resource in this subscription: ${maintenanceTopicId}'))
var topicName = createTopic ? take('evgt-maintenance-${environmentName}-${take(uniqueString(subscription().id, environmentName), 6)}', 128) : topicPath[8]

module topic 'maintenance-topic.bicep' = if (createTopic) {
  name: take('quiesce-maintenance-topic-${environmentName}', 64)
  scope: resourceGroup(topicResourceGroup)
  params: {
    name: topicName
    tags: tags
  }
}

module delivery 'maintenance-delivery.bicep' = {
  name: take('quiesce-maintenance-delivery-${environmentName}', 64)
  scope: resourceGroup(topicResourceGroup)
  params: {
    topicName: topicName
    name: take('quiesce-${environmentName}', 64)
    functionAppId: functionAppId
  }
  dependsOn: [topic]
}

// Custom role names are unique per tenant (as for the "Quiesce control plane" role).
var suffix = take(uniqueString(subscription().id, environmentName), 6)

resource role 'Microsoft.Authorization/roleDefinitions@2022-04-01' = {
  name: guid(subscription().id, environmentName, 'quiesce-control-plane-events')
  properties: {
    roleName: 'Quiesce control-plane events (${environmentName} ${suffix})'
    description: 'Lets the Quiesce coordinator query Azure Resource Graph for scheduled events (preview) and read the scale sets they are scoped to, in the resource groups named at deployment.'
    type: 'CustomRole'
    permissions: [
      {
        actions: controlPlaneEventsActions
        notActions: []
        dataActions: []
        notDataActions: []
      }
    ]
    assignableScopes: [for name in resourceGroupNames: '${subscription().id}/resourceGroups/${name}']
  }
}

module access 'control-plane-access.bicep' = [
  for name in resourceGroupNames: {
    name: take('quiesce-control-plane-events-${environmentName}', 64)
    scope: resourceGroup(name)
    params: {
      roleDefinitionId: role.id
      appPrincipalId: appPrincipalId
      purpose: 'Quiesce coordinator: Resource Graph backstop for scheduled events (preview).'
    }
  }
]

output topicId string = createTopic ? topic!.outputs.id : maintenanceTopicId
output eventSubscriptionId string = delivery.outputs.id
output roleDefinitionId string = role.id
