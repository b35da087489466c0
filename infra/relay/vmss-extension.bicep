// Adds the relay extension to an existing scale set's model (its extension profile). Instances
// pick it up by the scale set's upgrade policy: Automatic/Rolling at once, Manual after
// `az vmss update-instances` (docs/deploy.md). New scale sets can instead put
// { name: 'QuiesceRelay', properties: extensionProperties(...) } in extensionProfile directly,
// as infra/examples/demo-cluster does.

import { RelayConfig, RelayArtifacts, extensionProperties } from 'extension.bicep'

@description('Name of an existing scale set in this resource group.')
param scaleSetName string
param osType ('Linux' | 'Windows') = 'Linux'
param config RelayConfig
param artifacts RelayArtifacts
@description('Change to re-run the installer (e.g. the relay version being rolled out).')
param forceUpdateTag string

resource scaleSet 'Microsoft.Compute/virtualMachineScaleSets@2024-07-01' existing = {
  name: scaleSetName
}

resource relay 'Microsoft.Compute/virtualMachineScaleSets/extensions@2024-07-01' = {
  parent: scaleSet
  name: 'QuiesceRelay'
  properties: extensionProperties(osType, config, artifacts, forceUpdateTag)
}
