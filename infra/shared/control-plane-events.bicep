// Control-plane events (PREVIEW in Azure): scheduled events delivered off the VM, to the Event Grid
// system topic `Microsoft.ResourceNotifications.MaintenanceResources` and to Azure Resource Graph
// (docs/control-plane.md, "Deploying the control-plane events (preview)"; docs/deploy.md). The
// names and values main.bicep and core/control-plane-events*.bicep share, and the functions that
// turn the operator's parameters into the `az` commands main.bicep outputs. Nothing here was tried
// against real Azure; test/infra/control-plane-events.test.ts and
// test/infra/scheduled-events-policy.test.ts evaluate it with `bicep console`.

@export()
@description('Event Grid topic type of scheduled events (azure-compute-docs scheduled-events-event-grid.md, 05/01/2026). Subscription-scoped, location global.')
var maintenanceTopicType = 'Microsoft.ResourceNotifications.MaintenanceResources'

@export()
@description('The coordinator\'s Event Grid-triggered function (app.eventGrid("maintenanceEvents", ...)).')
var maintenanceFunctionName = 'maintenanceEvents'

// A scheduled event's subject is its ARM id, `…/providers/microsoft.maintenance/scheduledevents/{id}`
// (the same topic also carries AKS maintenance events). Event Grid string filters are not case
// sensitive ("All string comparisons aren't case-sensitive", Event Grid event-filtering.md), so the
// doc's `Microsoft.Maintenance/Scheduledevents` spelling matches too. The event type is not used:
// the docs name it three ways.
@export()
@description('Advanced filter of the event subscription: scheduled events only.')
var scheduledEventsFilter = {
  operatorType: 'StringContains'
  key: 'Subject'
  values: ['/providers/microsoft.maintenance/scheduledevents/']
}

// What the Resource Graph backstop needs beyond the "Quiesce control plane" role, on the same
// resource groups. Resource Graph returns only what the caller may read ("at least read access to
// the resources you want to query", Resource Graph overview); a scale set's events are scoped to the
// scale set, which the control-plane role cannot read. No `Microsoft.Maintenance/scheduledevents/read`
// action exists in Microsoft's operations list, so which read Azure checks for those rows is
// not known here (docs/control-plane.md lists this as not verified).
@export()
@description('Actions of the "Quiesce control-plane events" custom role.')
var controlPlaneEventsActions = [
  // "Submits a query on resources within specified subscriptions, management groups or tenant scope"
  'Microsoft.ResourceGraph/resources/read'
  // "Get the properties of a Virtual Machine Scale Set": the scope of a scale set's events.
  'Microsoft.Compute/virtualMachineScaleSets/read'
]

@export()
@description('`az` commands for the preview feature flags (Microsoft.Features, asynchronous) and the provider re-registration that propagates them. Run once per subscription, in this order.')
var previewFeatureCommands = [
  'az feature register --namespace Microsoft.Compute --name SendScheduledEventsPolicy'
  'az feature register --namespace Microsoft.Maintenance --name ScheduledEventsActivity'
  'az feature show --namespace Microsoft.Compute --name SendScheduledEventsPolicy --query properties.state -o tsv'
  'az feature show --namespace Microsoft.Maintenance --name ScheduledEventsActivity --query properties.state -o tsv'
  'az provider register --namespace Microsoft.Compute'
  'az provider register --namespace Microsoft.Maintenance'
  'az provider register --namespace Microsoft.EventGrid'
]

@export()
@description('A comma-separated list: trimmed, empty entries and exact duplicates dropped.')
func commaList(list string) string[] => union(filter(map(split(list, ','), item => trim(item)), item => !empty(item)), [])

// parts is padded to 9 entries, so no index is out of range whatever id was (the length is checked
// apart): nothing here depends on the deployment engine short-circuiting `&&`.
func isComputePath(parts string[], count int, type string) bool => count == 9 && join(map([parts[0], parts[1], parts[3], parts[5], parts[6], parts[7]], part => toLower(part)), '/') == '/subscriptions/resourcegroups/providers/microsoft.compute/${toLower(type)}' && !contains([parts[2], parts[4], parts[8]], '')

@export()
@description('Whether id is the ARM id of a resource of the given Microsoft.Compute type (case-insensitive).')
func isComputeId(id string, type string) bool => isComputePath(concat(split(id, '/'), ['', '', '', '', '', '', '', '', '']), length(split(id, '/')), type)

@description('The entries of a comma-separated list that are not ids of the given Microsoft.Compute type.')
func invalidComputeIds(list string, type string) string[] => filter(commaList(list), id => !isComputeId(id, type))

@export()
@description('The scale set or availability set ids of a comma-separated list, or a deployment failure naming the first that is not one.')
func computeIds(list string, type string) string[] => empty(invalidComputeIds(list, type)) ? commaList(list) : fail('Not a Microsoft.Compute/${type} resource id (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Compute/${type}/<name>): ${invalidComputeIds(list, type)[0]}')

@export()
@description('scheduledEventsPolicy (Compute API 2025-04-01 or newer): publish to Event Grid and Resource Graph, and the operator\'s auto-approval of user-initiated reboots and redeploys.')
func scheduledEventsPolicy(autoApproveReboot bool, autoApproveRedeploy bool) object => {
  userInitiatedReboot: { automaticallyApprove: autoApproveReboot }
  userInitiatedRedeploy: { automaticallyApprove: autoApproveRedeploy }
  scheduledEventsAdditionalPublishingTargets: {
    // "During the preview, the only supported value is 2020-07-01."
    eventGridAndResourceGraph: { enable: true, scheduledEventsApiVersion: '2020-07-01' }
  }
}

// `az vmss update --set scheduledEventsPolicy=…` is the form Microsoft documents for an existing
// scale set (scheduled-events-event-grid.md); the availability-set form is the same generic update.
// Both read the resource and write it back whole, through the Azure CLI's own Compute API version,
// so the CLI must be recent (docs/deploy.md). The JSON is single-quoted for bash.
@export()
@description('The az command that sets scheduledEventsPolicy on one scale set or availability set (by id).')
func policyCommand(id string, policy object) string => '${isComputeId(id, 'virtualMachineScaleSets') ? 'az vmss update' : 'az vm availability-set update'} --ids ${id} --set scheduledEventsPolicy=\'${string(policy)}\''

@export()
@description('Minutes of an ISO-8601 PT<n>M duration (the Azure CLI takes minutes).')
func durationMinutes(duration string) int => int(replace(replace(toUpper(duration), 'PT', ''), 'M', ''))

@export()
@description('The az commands that turn on Terminate notifications (timeout given, PT5M..PT15M) and OS image notifications (PT15M, fixed by Azure) on one scale set.')
func notificationCommands(id string, terminateTimeout string, osImage bool) string[] => concat(
  empty(terminateTimeout) ? [] : ['az vmss update --ids ${id} --enable-terminate-notification true --terminate-notification-time ${durationMinutes(terminateTimeout)}'],
  osImage ? ['az vmss update --ids ${id} --enable-osimage-notification true'] : []
)

@export()
@description('Every command for the named groups, in the order to run them: the policies, then the scale sets\' notification profiles.')
func scheduledEventsCommands(scaleSets string[], availabilitySets string[], policy object, terminateTimeout string, osImage bool) string[] => concat(
  map(concat(scaleSets, availabilitySets), id => policyCommand(id, policy)),
  flatten(map(scaleSets, id => notificationCommands(id, terminateTimeout, osImage)))
)
