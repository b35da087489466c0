// An Azure Monitor alert processing rule that silences a team's own alerts for exactly the VMs
// Quiesce is maintaining (docs/operations.md, "Silencing your own alerts during maintenance").
//
// Alert processing rules (Microsoft.AlertsManagement/actionRules, api-version 2021-08-08, the GA
// version in azure-rest-api-specs) apply to the alerts fired on resources inside their `scopes`,
// which may be single resources, and filter them further with `conditions`; the action
// `RemoveAllActionGroups` suppresses their notifications (the alerts still fire and are kept).
// The rule cannot read a metric dimension, so it is scoped to the VMs themselves: deployed here
// disabled, over the team's resource group, and kept up to date by whoever follows the
// `quiesce.vm.maintenance_active` signal (its `resourceId` dimension): a PUT of this rule with
// `scopes` = the VMs under maintenance and `enabled` = true, and `enabled` = false when none.
// The Quiesce coordinator does not make that PUT itself yet.

@description('Name of the alert processing rule.')
param name string = 'quiesce-maintenance-suppression'

@description('Where the rule applies until the VM list is set: the team\'s resource group id.')
param initialScopes array = [resourceGroup().id]

@description('Only these alert rules are silenced (their ARM ids); empty: every alert on the scoped VMs.')
param alertRuleIds array = []

@description('Silence only alerts of these severities (Sev0..Sev4); empty: all.')
param severities array = []

@description('Deployed disabled: nothing is silenced until VMs are under maintenance.')
param enabled bool = false

var ruleCondition = empty(alertRuleIds) ? [] : [
  {
    field: 'AlertRuleId'
    operator: 'Equals'
    values: alertRuleIds
  }
]
var severityCondition = empty(severities) ? [] : [
  {
    field: 'Severity'
    operator: 'Equals'
    values: severities
  }
]

resource suppression 'Microsoft.AlertsManagement/actionRules@2021-08-08' = {
  name: name
  location: 'Global'
  properties: {
    description: 'Quiesce: suppress notifications of alerts on VMs under planned maintenance'
    enabled: enabled
    scopes: initialScopes
    conditions: concat(ruleCondition, severityCondition)
    actions: [
      {
        actionType: 'RemoveAllActionGroups'
      }
    ]
  }
}

output ruleId string = suppression.id
