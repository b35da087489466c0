// Log Analytics workspace and workspace-based Application Insights. Local (key) auth is off:
// the Function app sends telemetry with its managed identity (Monitoring Metrics Publisher).

param location string
param tags object
param logAnalyticsName string
param applicationInsightsName string

@description('Days Log Analytics keeps data (30 is the free retention included with ingestion).')
param retentionInDays int = 30

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: { name: 'PerGB2018' }
    retentionInDays: retentionInDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = appInsights.name
output applicationInsightsId string = appInsights.id
output connectionString string = appInsights.properties.ConnectionString
output logAnalyticsWorkspaceId string = workspace.id
