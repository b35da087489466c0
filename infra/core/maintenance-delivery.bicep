// The event subscription that delivers scheduled events (PREVIEW) from the maintenance system topic
// to the coordinator's Event Grid-triggered function `maintenanceEvents`, in the Event Grid schema,
// one event per delivery, filtered on the subject (shared/control-plane-events.bicep). Deployed
// into the topic's resource group. The function must exist when this is deployed: Event Grid
// validates an AzureFunction destination ("Resource should pre-exist", docs/deploy.md).

import { maintenanceFunctionName, scheduledEventsFilter } from '../shared/control-plane-events.bicep'

targetScope = 'resourceGroup'

@description('Name of the Microsoft.ResourceNotifications.MaintenanceResources system topic, in this resource group.')
param topicName string

@description('Name of the event subscription: one per Quiesce environment, so two environments can share the topic.')
param name string

@description('Resource id of the coordinator\'s Function app.')
param functionAppId string

resource topic 'Microsoft.EventGrid/systemTopics@2025-02-15' existing = {
  name: topicName
}

resource delivery 'Microsoft.EventGrid/systemTopics/eventSubscriptions@2025-02-15' = {
  parent: topic
  name: name
  properties: {
    destination: {
      endpointType: 'AzureFunction'
      properties: {
        resourceId: '${functionAppId}/functions/${maintenanceFunctionName}'
        // One event per invocation: a failed invocation is retried for that event only.
        maxEventsPerBatch: 1
        preferredBatchSizeInKilobytes: 64
      }
    }
    eventDeliverySchema: 'EventGridSchema'
    filter: {
      advancedFilters: [scheduledEventsFilter]
    }
    // Event Grid's own defaults, spelled out: a late Completed or Canceled still closes an event,
    // and the coordinator's Resource Graph backstop covers what is dropped (no dead-letter storage).
    retryPolicy: {
      maxDeliveryAttempts: 30
      eventTimeToLiveInMinutes: 1440
    }
  }
}

output id string = delivery.id
