// Quiesce coordinator: everything `azd up` provisions. Subscription scope so azd can create the
// resource group. Relays are installed separately on the VMs (infra/relay/, docs/deploy.md).

import { resourceGroupNames } from 'shared/control-plane.bicep'
import * as events from 'shared/control-plane-events.bicep'
import * as subs from 'shared/subscriptions.bicep'

targetScope = 'subscription'

@minLength(1)
@maxLength(40)
@description('azd environment name; part of every resource name.')
param environmentName string

@minLength(1)
@description('Region of all resources (must offer the Flex Consumption plan).')
param location string

@description('Entra tenant that issues relay and operator tokens; the deploying tenant by default.')
param entraTenantId string = tenant().tenantId

@minLength(1)
@description('Identifier URI of the coordinator\'s app registration (api://<appId>): relays request tokens for it. scripts/entra/create-app.sh prints it.')
param entraAudience string

@description('Client id (appId) of that app registration; also accepted as token audience (v2 tokens carry it). Optional.')
param entraClientId string = ''

@description('Policy JSON (see README); empty keeps the coordinator\'s defaults.')
param policyJson string = ''

@description('NCRONTAB schedule of the coordinator\'s sweep timer (six fields, with seconds).')
param sweepSchedule string = '*/10 * * * * *'

@description('Principal id of the deployer, granted upload rights on the relay container (azd sets AZURE_PRINCIPAL_ID).')
param deployerPrincipalId string = ''
@allowed(['User', 'ServicePrincipal', 'Group'])
param deployerPrincipalType string = 'User'

@description('Upper bound on Function instances.')
param maximumInstanceCount int = 40

@allowed([512, 2048, 4096])
@description('Flex Consumption instance memory (MB); execution time is billed per GB-s of it. 512 holds the coordinator (docs/deploy.md, cost).')
param instanceMemoryMB int = 512

@secure()
@description('Teams Workflows webhook URL for notifications (stored in Key Vault); empty: no Teams messages.')
param teamsWebhookUrl string = ''
@secure()
@description('Slack incoming webhook URL (stored in Key Vault); empty: no Slack messages.')
param slackWebhookUrl string = ''
@secure()
@description('Generic JSON webhook URL (stored in Key Vault); needs webhookSecret.')
param webhookUrl string = ''
@secure()
@description('HMAC-SHA256 key (32+ characters) the generic webhook is signed with (stored in Key Vault).')
param webhookSecret string = ''
@description('Action group the missed-event and uncovered-group alerts notify; empty: portal only.')
param alertActionGroupId string = ''

// A comma-separated string, not an array: azd maps environment values into parameters as text
// (an array from the environment needs azd 1.23.4 or later), and `az deployment -p name=a,b` works too.
@description('Resource groups in this subscription, comma-separated (e.g. "rg-web,rg-lb"), holding the VMs, scale sets, availability sets and load balancers the coordinator may act on through Azure Resource Manager. Empty (the default): no role is created or granted, and the coordinator\'s control plane stays off (docs/control-plane.md).')
param controlPlaneResourceGroups string = ''
@description('Resource groups in OTHER subscriptions the coordinator may act on, as ids, comma-separated (/subscriptions/<id>/resourceGroups/<name>). Each subscription named gets its own "Quiesce control plane" role, assignable to and assigned on its named groups only, and, with controlPlaneEvents, its own system topic and event subscription. Needs controlPlaneResourceGroups. docs/control-plane.md, "Many subscriptions".')
param controlPlaneSubscriptions string = ''

// Scheduled events from the control plane: all PREVIEW in Azure, all off by default, none verified
// against real Azure (docs/deploy.md, "Control-plane events (preview)"; docs/control-plane.md).
// Opt-in switches are 'true'/'false' strings, as azd passes environment values as text.
@allowed(['false', 'true'])
@description('PREVIEW. \'true\': the Event Grid system topic for this subscription\'s scheduled events (Microsoft.ResourceNotifications.MaintenanceResources), its event subscription to the coordinator\'s maintenanceEvents function, the Resource Graph role on the control-plane groups, and QUIESCE_CONTROL_PLANE_EVENTS. Needs controlPlaneResourceGroups (refused without), the preview feature flags, the scheduled events policy on the groups, and a deployed coordinator that has the function.')
param controlPlaneEvents string = 'false'
@minValue(0)
@maxValue(86400)
@description('PREVIEW. Seconds between the coordinator\'s Resource Graph queries for scheduled events (QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS); 0 turns that backstop off.')
param resourceGraphIntervalSeconds int = 300
@description('PREVIEW. Subscription ids the Resource Graph backstop queries, comma-separated; empty: those of the clusters\' VMs. Grant the coordinator read access in other subscriptions yourself (docs/deploy.md).')
param resourceGraphSubscriptions string = ''
@description('PREVIEW. Resource id of an existing Microsoft.ResourceNotifications.MaintenanceResources system topic of this subscription (Event Grid allows one per source, e.g. one already made for AKS, or by another Quiesce environment); empty: create one. With controlPlaneSubscriptions, comma-separated, at most one per subscription.')
param maintenanceTopicId string = ''
@description('PREVIEW. Scale sets (resource ids, comma-separated) to opt into scheduledEventsPolicy (Event Grid and Resource Graph). Nothing is changed by the deployment: the output QUIESCE_SCHEDULED_EVENTS_COMMANDS lists the az commands to run.')
param scheduledEventsScaleSets string = ''
@description('PREVIEW. Availability sets (resource ids, comma-separated), as scheduledEventsScaleSets.')
param scheduledEventsAvailabilitySets string = ''
@allowed(['false', 'true'])
@description('PREVIEW. scheduledEventsPolicy.userInitiatedReboot.automaticallyApprove for the named groups: \'true\' makes user-initiated reboots skip Scheduled (relays see only Started).')
param scheduledEventsAutoApproveReboot string = 'false'
@allowed(['false', 'true'])
@description('PREVIEW. scheduledEventsPolicy.userInitiatedRedeploy.automaticallyApprove for the named groups, as for reboots.')
param scheduledEventsAutoApproveRedeploy string = 'false'
@allowed(['', 'PT5M', 'PT6M', 'PT7M', 'PT8M', 'PT9M', 'PT10M', 'PT11M', 'PT12M', 'PT13M', 'PT14M', 'PT15M'])
@description('PREVIEW (the Quiesce support; Terminate notifications themselves are GA in Azure). Terminate notifications on the named scale sets with this notBeforeTimeout (ISO-8601, PT5M to PT15M; not on Spot instances); empty: not changed. Emitted as az commands, like the policy.')
param terminateNotificationTimeout string = ''
@allowed(['false', 'true'])
@description('PREVIEW (the Quiesce support). \'true\': OS image (reimage, OS upgrade) notifications on the named scale sets; Azure fixes their timeout at PT15M. Emitted as az commands.')
param osImageNotification string = 'false'

var tags = { 'azd-env-name': environmentName, application: 'quiesce' }
// Deterministic per subscription + environment, so re-running `azd provision` updates in place.
var token = toLower(uniqueString(subscription().id, environmentName, location))
var controlPlaneGroups = resourceGroupNames(controlPlaneResourceGroups)
var controlPlane = !empty(controlPlaneGroups)
// Refused, not ignored: the events need the control plane's groups for their role and settings.
var otherGroupIds = subs.groupIds(controlPlaneSubscriptions)
var otherSubscriptions = empty(otherGroupIds) || controlPlane ? subs.otherSubscriptions(otherGroupIds, subscription().subscriptionId) : fail('controlPlaneSubscriptions needs controlPlaneResourceGroups (at least one group in this subscription): the other subscriptions extend the control plane.')
var eventsOn = controlPlaneEvents == 'true' ? (controlPlane ? true : fail('controlPlaneEvents needs controlPlaneResourceGroups (QUIESCE_CONTROL_PLANE_RESOURCE_GROUPS): the control-plane events extend the control plane.')) : false
var scheduledEventsScaleSetIds = events.computeIds(scheduledEventsScaleSets, 'virtualMachineScaleSets')
var scheduledEventsAvailabilitySetIds = events.computeIds(scheduledEventsAvailabilitySets, 'availabilitySets')

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: 'rg-${environmentName}'
  location: location
  tags: tags
}

module monitoring 'core/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    location: location
    tags: tags
    logAnalyticsName: 'log-${environmentName}-${token}'
    applicationInsightsName: 'appi-${environmentName}-${token}'
  }
}

module storage 'core/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    location: location
    tags: tags
    storageAccountName: take('stquiesce${token}', 24)
  }
}

module identity 'core/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    location: location
    tags: tags
    name: 'id-coordinator-${environmentName}-${token}'
  }
}

module roles 'core/role-assignments.bicep' = {
  name: 'role-assignments'
  scope: rg
  params: {
    storageAccountName: storage.outputs.storageAccountName
    relayContainerName: storage.outputs.relayContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    appPrincipalId: identity.outputs.principalId
    deployerPrincipalId: deployerPrincipalId
    deployerPrincipalType: deployerPrincipalType
  }
}

// The coordinator's Azure Resource Manager access (docs/control-plane.md): a custom role with
// exactly the actions its ARM client uses, assigned on the named resource groups only. Nothing
// is created or granted when the list is empty.
module controlPlaneRole 'core/control-plane-role.bicep' = if (controlPlane) {
  name: 'control-plane-role'
  params: {
    environmentName: environmentName
    resourceGroupNames: controlPlaneGroups
  }
}

module controlPlaneAccess 'core/control-plane-access.bicep' = [
  for name in controlPlaneGroups: {
    // A deployment in that resource group, named per environment (two environments may share it).
    name: take('quiesce-control-plane-${environmentName}', 64)
    scope: resourceGroup(name)
    params: {
      roleDefinitionId: controlPlaneRole!.outputs.roleDefinitionId
      appPrincipalId: identity.outputs.principalId
    }
  }
]

// The same access in each other subscription named (core/control-plane-subscription.bicep).
module otherSubscriptionAccess 'core/control-plane-subscription.bicep' = [
  for sub in otherSubscriptions: {
    name: take('quiesce-subscription-${environmentName}', 64)
    scope: subscription(sub)
    params: {
      environmentName: environmentName
      resourceGroupNames: subs.groupsIn(otherGroupIds, sub)
      appPrincipalId: identity.outputs.principalId
    }
  }
]

module keyVault 'core/key-vault.bicep' = {
  name: 'key-vault'
  scope: rg
  params: {
    location: location
    tags: tags
    name: take('kv-quiesce-${token}', 24)
    appPrincipalId: identity.outputs.principalId
    teamsWebhookUrl: teamsWebhookUrl
    slackWebhookUrl: slackWebhookUrl
    webhookUrl: webhookUrl
    webhookSecret: webhookSecret
  }
}

module alerts 'core/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    location: location
    tags: tags
    applicationInsightsId: monitoring.outputs.applicationInsightsId
    actionGroupId: alertActionGroupId
  }
}

module coordinator 'core/function-app.bicep' = {
  name: 'coordinator'
  scope: rg
  params: {
    location: location
    tags: tags
    planName: 'plan-${environmentName}-${token}'
    functionAppName: 'func-quiesce-${token}'
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    blobEndpoint: storage.outputs.blobEndpoint
    queueEndpoint: storage.outputs.queueEndpoint
    tableEndpoint: storage.outputs.tableEndpoint
    deploymentContainerName: storage.outputs.deploymentContainerName
    applicationInsightsConnectionString: monitoring.outputs.connectionString
    entraTenantId: entraTenantId
    entraAudience: empty(entraClientId) ? entraAudience : '${entraAudience},${entraClientId}'
    policyJson: policyJson
    sweepSchedule: sweepSchedule
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    controlPlane: controlPlane
    subscriptions: subs.servedSubscriptions(subscription().subscriptionId, otherSubscriptions)
    controlPlaneEvents: eventsOn
    resourceGraphIntervalSeconds: resourceGraphIntervalSeconds
    resourceGraphSubscriptions: join(map(events.commaList(resourceGraphSubscriptions), id => toLower(id)), ',')
    keyVaultName: keyVault.outputs.name
    notificationSinks: {
      teams: !empty(teamsWebhookUrl)
      slack: !empty(slackWebhookUrl)
      webhookUrl: !empty(webhookUrl) && !empty(webhookSecret)
      webhookSecret: !empty(webhookUrl) && !empty(webhookSecret)
    }
  }
  // The host starts with its identity: give it its roles first.
  dependsOn: [roles, controlPlaneAccess, otherSubscriptionAccess]
}

// PREVIEW: topic, event subscription to the deployed maintenanceEvents function, Resource Graph
// role (core/control-plane-events.bicep). After the coordinator: Event Grid validates the function.
module controlPlaneEventsDelivery 'core/control-plane-events.bicep' = if (eventsOn) {
  name: take('quiesce-events-${environmentName}', 64)
  params: {
    environmentName: environmentName
    resourceGroupNames: controlPlaneGroups
    appPrincipalId: identity.outputs.principalId
    coordinatorResourceGroup: rg.name
    functionAppId: coordinator.outputs.functionAppId
    maintenanceTopicId: subs.topicsOutside(maintenanceTopicId, otherSubscriptions)
    tags: tags
  }
}

// PREVIEW: each other subscription's own system topic (in its first named group, or the existing one
// maintenanceTopicId names there), event subscription to the same function, and Resource Graph role.
module otherSubscriptionEvents 'core/control-plane-events.bicep' = [
  for sub in (eventsOn ? otherSubscriptions : []): {
    name: take('quiesce-subscription-events-${environmentName}', 64)
    scope: subscription(sub)
    params: {
      environmentName: environmentName
      resourceGroupNames: subs.groupsIn(otherGroupIds, sub)
      appPrincipalId: identity.outputs.principalId
      coordinatorResourceGroup: subs.groupsIn(otherGroupIds, sub)[0]
      functionAppId: coordinator.outputs.functionAppId
      maintenanceTopicId: subs.topicIn(maintenanceTopicId, sub)
      tags: tags
    }
  }
]

// azd stores these in the environment (.azure/<env>/.env); the relay scripts read them.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output QUIESCE_COORDINATOR_URL string = coordinator.outputs.coordinatorUrl
output QUIESCE_FUNCTION_APP_NAME string = coordinator.outputs.functionAppName
@description('The status page; scripts/entra/add-page-redirect.sh registers it as the app registration\'s SPA redirect URI.')
output QUIESCE_STATUS_PAGE_URL string = '${coordinator.outputs.coordinatorUrl}/api/ui'
@description('What relays put in QUIESCE_ENTRA_AUDIENCE (a single value: the token resource).')
output QUIESCE_ENTRA_AUDIENCE string = entraAudience
output QUIESCE_ENTRA_TENANT_ID string = entraTenantId
output QUIESCE_STORAGE_ACCOUNT string = storage.outputs.storageAccountName
output QUIESCE_RELAY_CONTAINER string = storage.outputs.relayContainerName
output QUIESCE_RELAY_ARTIFACTS_URL string = '${storage.outputs.blobEndpoint}${storage.outputs.relayContainerName}'
output QUIESCE_COORDINATOR_PRINCIPAL_ID string = identity.outputs.principalId
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.applicationInsightsName
@description('PREVIEW. The Event Grid system topic and event subscription delivering scheduled events; empty when controlPlaneEvents is off.')
output QUIESCE_MAINTENANCE_TOPIC_ID string = eventsOn ? controlPlaneEventsDelivery!.outputs.topicId : ''
output QUIESCE_MAINTENANCE_EVENT_SUBSCRIPTION_ID string = eventsOn ? controlPlaneEventsDelivery!.outputs.eventSubscriptionId : ''
@description('PREVIEW. Once per subscription, before the policy: register the feature flags, wait for Registered, re-register the providers (docs/deploy.md).')
output QUIESCE_PREVIEW_FEATURE_COMMANDS string[] = eventsOn || !empty(concat(scheduledEventsScaleSetIds, scheduledEventsAvailabilitySetIds)) ? events.previewFeatureCommands : []
@description('PREVIEW. The az commands that set scheduledEventsPolicy, Terminate and OS image notifications on the named groups; run them yourself (Bicep cannot patch an existing scale set).')
output QUIESCE_SCHEDULED_EVENTS_COMMANDS string[] = events.scheduledEventsCommands(scheduledEventsScaleSetIds, scheduledEventsAvailabilitySetIds, events.scheduledEventsPolicy(scheduledEventsAutoApproveReboot == 'true', scheduledEventsAutoApproveRedeploy == 'true'), terminateNotificationTimeout, osImageNotification == 'true')
