// Many subscriptions (main.bicep, controlPlaneSubscriptions): one deployment serving clusters whose
// VMs are in several subscriptions. The operator names resource groups in other subscriptions by
// their ARM ids; each subscription so named gets its own copy of what the deployment's own
// subscription gets (core/control-plane-subscription.bicep). These functions parse and check the
// list; test/infra/subscriptions.test.ts evaluates them with `bicep console`.

// '/subscriptions/<id>/resourceGroups/<name>' split on '/' is 5 parts ('' first). Padded, so no
// index is out of range whatever the entry holds.
func parts(id string) string[] => concat(split(id, '/'), ['', '', '', '', ''])

// A subscription id is a GUID: 8-4-4-4-12 hexadecimal digits.
func isGuid(text string) bool => join(map(split(text, '-'), part => string(length(part))), ',') == '8,4,4,4,12' && empty(reduce(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', '-'], toLower(text), (rest, digit) => replace(rest, digit, '')))

func isGroupId(id string) bool => length(split(id, '/')) == 5 && empty(parts(id)[0]) && toLower(parts(id)[1]) == 'subscriptions' && isGuid(parts(id)[2]) && toLower(parts(id)[3]) == 'resourcegroups' && !empty(parts(id)[4])

func entries(list string) string[] => filter(map(split(list, ','), item => trim(item)), item => !empty(item))

func invalid(list string) string[] => filter(entries(list), id => !isGroupId(id))

@export()
@description('The resource group ids of a comma-separated list, lower-cased (Azure compares them without case) and without duplicates, or a deployment failure naming the first entry that is not /subscriptions/<subscription id>/resourceGroups/<name>.')
func groupIds(list string) string[] => empty(invalid(list)) ? union(map(entries(list), id => toLower(id)), []) : fail('controlPlaneSubscriptions: not a resource group id (/subscriptions/<subscription id, a GUID>/resourceGroups/<name>): ${invalid(list)[0]}')

@export()
@description('The subscriptions the group ids name, each once, in order of first appearance.')
func subscriptionIds(ids string[]) string[] => union(map(ids, id => parts(id)[2]), [])

@export()
@description('The names of the groups in one subscription.')
func groupsIn(ids string[], subscriptionId string) string[] => map(filter(ids, id => parts(id)[2] == toLower(subscriptionId)), id => parts(id)[4])

@export()
@description('The other subscriptions, or a deployment failure when one of them is the deployment\'s own (its groups go in controlPlaneResourceGroups).')
func otherSubscriptions(ids string[], own string) string[] => contains(subscriptionIds(ids), toLower(own)) ? fail('controlPlaneSubscriptions names the deployment\'s own subscription ${toLower(own)}: name its resource groups in controlPlaneResourceGroups instead') : subscriptionIds(ids)

@export()
@description('The existing Microsoft.ResourceNotifications.MaintenanceResources system topic (resource id) of one subscription among a comma-separated list; empty: none given, create one.')
func topicIn(topicIds string, subscriptionId string) string => first(concat(filter(entries(topicIds), id => toLower(parts(id)[2]) == toLower(subscriptionId)), ['']))

@export()
@description('The existing maintenance system topic ids of a comma-separated list that are not in any of the given subscriptions (what the deployment\'s own subscription is left with).')
func topicsOutside(topicIds string, subscriptionIds string[]) string => join(filter(entries(topicIds), id => !contains(subscriptionIds, toLower(parts(id)[2]))), ',')

@export()
@description('Every subscription the deployment serves (QUIESCE_SUBSCRIPTIONS): its own, then the others; empty when there are no others (the coordinator\'s default applies).')
func servedSubscriptions(own string, others string[]) string => empty(others) ? '' : join(union([toLower(own)], others), ',')
