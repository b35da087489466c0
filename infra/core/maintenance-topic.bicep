// The Event Grid system topic that carries this subscription's scheduled events (PREVIEW):
// topic type Microsoft.ResourceNotifications.MaintenanceResources, source the subscription,
// location global (azure-compute-docs scheduled-events-event-grid.md, 05/01/2026). Event Grid allows
// one system topic per source, so core/control-plane-events.bicep deploys this only when the
// operator names no existing topic (main.bicep, maintenanceTopicId).

import { maintenanceTopicType } from '../shared/control-plane-events.bicep'

targetScope = 'resourceGroup'

@description('Name of the system topic.')
param name string
param tags object

resource topic 'Microsoft.EventGrid/systemTopics@2025-02-15' = {
  name: name
  location: 'global'
  tags: tags
  properties: {
    source: subscription().id
    topicType: maintenanceTopicType
  }
}

output id string = topic.id
