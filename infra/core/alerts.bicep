// Azure Monitor log alerts on the coordinator's metrics in Application Insights
// (docs/operations.md has the same queries for the workbook):
// - missed events: an event Azure started at NotBefore without our approval;
// - uncovered groups: a placement group, scale set or zone with members and no live relay.
// Both evaluate every 5 minutes over 15; they notify the action group when one is given.

param location string
param tags object
param applicationInsightsId string

@description('Resource id of an action group to notify (e-mail, Teams, pager); empty: the alerts only show in the portal.')
param actionGroupId string = ''

var rules = [
  {
    name: 'quiesce-missed-events'
    displayName: 'Quiesce: event started at NotBefore without approval'
    description: 'A Scheduled Event expired at NotBefore: its VMs were not all drained (or approval was not allowed) in time.'
    severity: 1
    query: 'customMetrics | where name == "quiesce.events" and tostring(customDimensions.outcome) == "expiredAtNotBefore" | summarize missed = sum(valueSum) by cluster = tostring(customDimensions.cluster) | where missed > 0'
  }
  {
    name: 'quiesce-uncovered-groups'
    displayName: 'Quiesce: group with no live relay'
    description: 'A placement group, scale set or zone has members and none of their relays reports: its maintenance would start with nothing drained.'
    severity: 2
    query: 'customMetrics | where name == "quiesce.groups.uncovered" | summarize uncovered = max(valueMax) by cluster = tostring(customDimensions.cluster) | where uncovered > 0'
  }
]

resource alert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = [
  for r in rules: {
    name: r.name
    location: location
    tags: tags
    properties: {
      displayName: r.displayName
      description: r.description
      severity: r.severity
      enabled: true
      scopes: [applicationInsightsId]
      evaluationFrequency: 'PT5M'
      windowSize: 'PT15M'
      autoMitigate: true
      criteria: {
        allOf: [
          {
            query: r.query
            timeAggregation: 'Count'
            operator: 'GreaterThan'
            threshold: 0
            dimensions: [
              { name: 'cluster', operator: 'Include', values: ['*'] }
            ]
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      actions: {
        actionGroups: empty(actionGroupId) ? [] : [actionGroupId]
      }
    }
  }
]
