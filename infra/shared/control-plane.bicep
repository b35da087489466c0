// What the coordinator's identity may do through Azure Resource Manager when the operator names
// resource groups for it (main.bicep, controlPlaneResourceGroups): the actions of the custom role
// core/control-plane-role.bicep defines, one per operation of the coordinator's ARM client, and
// nothing else (no wildcards). docs/control-plane.md lists each with its source; test/infra checks
// the list is exactly this and that the docs name the same actions.

@export()
@description('Actions of the "Quiesce control plane" custom role.')
var controlPlaneActions = [
  // Approve a scheduled event through the Maintenance RP (api-version 2025-11-01, GA):
  // POST …/providers/Microsoft.Compute/{virtualMachines|virtualMachineScaleSets|availabilitySets}/{name}
  //      /providers/Microsoft.Maintenance/scheduledevents/{eventId}/acknowledge
  // Listed in Azure's "Azure permissions for Management and governance" (Microsoft.Maintenance)
  // as "Acknowledge scheduled event of the resource". Not checked against a live call here.
  'Microsoft.Maintenance/scheduledevents/acknowledge/action'
  // Read VMs, their availability set, Uniform scale-set instances and their NICs.
  'Microsoft.Compute/virtualMachines/read'
  'Microsoft.Compute/availabilitySets/read'
  'Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read'
  'Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces/read'
  'Microsoft.Network/networkInterfaces/read'
  // Take a backend address out of a load balancer and back (adminState Down / None): GET, then PUT
  // of the whole backend pool. In a pool PUT, a NIC-based address's networkInterfaceIPConfiguration
  // is read-only, so no NIC join action is asked for (docs/control-plane.md, Permissions).
  'Microsoft.Network/loadBalancers/backendAddressPools/read'
  'Microsoft.Network/loadBalancers/backendAddressPools/write'
  // Alert-rule gates: list fired alerts (Alerts Management) filtered by alert rule.
  'Microsoft.AlertsManagement/alerts/read'
]

@export()
@description('The resource group names in a comma-separated list: trimmed, lower-cased (Azure compares them case-insensitively), empty entries and duplicates dropped.')
func resourceGroupNames(list string) string[] =>
  union(filter(map(split(toLower(list), ','), name => trim(name)), name => !empty(name)), [])

@export()
@description('A URL without its trailing slash (environment().resourceManager ends with one).')
func withoutTrailingSlash(url string) string => endsWith(url, '/') ? substring(url, 0, max(length(url) - 1, 0)) : url
