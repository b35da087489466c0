// Installs (or upgrades: change forceUpdateTag) the relay on existing VMs of this resource group
// with the Custom Script extension. Each VM's identity (or the user-assigned one named in
// artifacts) must hold Storage Blob Data Reader on the relay container (relay/artifact-access.bicep)
// and the Quiesce.Relay app role (scripts/entra/grant-relay-role.sh).

import { RelayConfig, RelayArtifacts, extensionProperties } from 'extension.bicep'

@description('Names of existing VMs in this resource group, all of one OS type.')
param vmNames string[]
param location string = resourceGroup().location
param osType ('Linux' | 'Windows') = 'Linux'
param config RelayConfig
param artifacts RelayArtifacts
@description('Change to re-run the installer (e.g. the relay version being rolled out).')
param forceUpdateTag string

resource vms 'Microsoft.Compute/virtualMachines@2024-07-01' existing = [
  for name in vmNames: {
    name: name
  }
]

resource relay 'Microsoft.Compute/virtualMachines/extensions@2024-07-01' = [
  for (name, i) in vmNames: {
    parent: vms[i]
    name: 'QuiesceRelay'
    location: location
    properties: extensionProperties(osType, config, artifacts, forceUpdateTag)
  }
]
