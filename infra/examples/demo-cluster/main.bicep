// Demo cluster: an availability set of Linux VMs plus a Linux scale set, all running the relay,
// wired to a coordinator deployed by infra/main.bicep (`azd up`). Events Azure schedules for the
// availability set name several VMs at once: exactly the case Quiesce coordinates.
//
// Deploy into its own resource group (docs/deploy.md, "Demo cluster"):
//   az deployment group create -g rg-quiesce-demo -f infra/examples/demo-cluster/main.bicep \
//     -p coordinatorUrl=... entraAudience=... relayArtifactsUrl=.../relay/0.1.0 \
//        storageAccountName=... storageResourceGroup=... sshPublicKey="$(cat ~/.ssh/id_ed25519.pub)"

import { extensionProperties } from '../../relay/extension.bicep'

param location string = resourceGroup().location
@description('Prefix of every resource name.')
param prefix string = 'quiesce-demo'

@description('Coordinator base URL (azd output QUIESCE_COORDINATOR_URL).')
param coordinatorUrl string
@description('Coordinator app registration identifier URI or client id (azd output QUIESCE_ENTRA_AUDIENCE).')
param entraAudience string
@description('Relay artifacts folder, e.g. https://<account>.blob.core.windows.net/relay/0.1.0 (upload-relay.sh prints it).')
param relayArtifactsUrl string
@description('Relay version; changing it re-runs the installer on every VM.')
param relayVersion string = '0.1.0'
@description('Coordinator storage account (azd output QUIESCE_STORAGE_ACCOUNT), for read access to the relay container.')
param storageAccountName string
@description('Resource group of that storage account (azd output AZURE_RESOURCE_GROUP).')
param storageResourceGroup string

@description('Drain hook: the demo only logs; put your load balancer / service drain here.')
param drainCommand string = 'logger -t quiesce-demo "drain requested"'
param recoverCommand string = 'logger -t quiesce-demo "recover requested"'
@description('Start with true to watch decisions without approving anything.')
param dryRun bool = false

@minValue(2)
@maxValue(10)
param availabilitySetVmCount int = 3
@minValue(1)
@maxValue(10)
param scaleSetCapacity int = 2
param vmSize string = 'Standard_B2s'
param adminUsername string = 'azureuser'
@secure()
@description('SSH public key for adminUsername (password login is disabled).')
param sshPublicKey string

var imageReference = {
  publisher: 'Canonical'
  offer: 'ubuntu-24_04-lts'
  sku: 'server'
  version: 'latest'
}
var linuxConfiguration = {
  disablePasswordAuthentication: true
  ssh: {
    publicKeys: [
      {
        path: '/home/${adminUsername}/.ssh/authorized_keys'
        keyData: sshPublicKey
      }
    ]
  }
}

// Two identities per machine, for two different jobs:
// - a user-assigned identity shared by the cluster only downloads the relay artifacts. It exists
//   (with its Blob Data Reader role) before any VM, so the extension can run at VM creation,
//   scale-set instances created later included.
// - each VM's (and the scale set's) system-assigned identity is what the relay authenticates to
//   the coordinator with: the coordinator binds a token to the VM or scale set that identity
//   belongs to, which a shared user-assigned identity could not prove. Those identities get the
//   Quiesce.Relay app role after deployment (scripts/entra/grant-relay-role.sh, docs/deploy.md).
resource downloadIdentity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: 'id-${prefix}-relay-download'
  location: location
}

module artifactAccess '../../relay/artifact-access.bicep' = {
  name: '${prefix}-relay-artifact-access'
  scope: resourceGroup(storageResourceGroup)
  params: {
    storageAccountName: storageAccountName
    principalIds: [downloadIdentity.properties.principalId]
  }
}

var identity = {
  type: 'SystemAssigned, UserAssigned'
  userAssignedIdentities: { '${downloadIdentity.id}': {} }
}

var availabilitySetCluster = {
  coordinatorUrl: coordinatorUrl
  cluster: '${prefix}-avset'
  entraAudience: entraAudience
  drainCommand: drainCommand
  recoverCommand: recoverCommand
  dryRun: dryRun
}
var scaleSetCluster = {
  coordinatorUrl: coordinatorUrl
  cluster: '${prefix}-vmss'
  entraAudience: entraAudience
  drainCommand: drainCommand
  recoverCommand: recoverCommand
  dryRun: dryRun
}
var artifacts = {
  baseUrl: relayArtifactsUrl
  downloadIdentityClientId: downloadIdentity.properties.clientId
}

resource nsg 'Microsoft.Network/networkSecurityGroups@2024-05-01' = {
  name: 'nsg-${prefix}'
  location: location
  properties: {
    securityRules: [] // no inbound rules: relays only make outbound HTTPS calls
  }
}

resource vnet 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: 'vnet-${prefix}'
  location: location
  properties: {
    addressSpace: { addressPrefixes: ['10.42.0.0/16'] }
    subnets: [
      {
        name: 'vms'
        properties: {
          addressPrefix: '10.42.1.0/24'
          networkSecurityGroup: { id: nsg.id }
          // No public IPs: NAT gateway gives the relays outbound access to the coordinator
          // and storage (default outbound access is retired for new subnets).
          natGateway: { id: natGateway.id }
          defaultOutboundAccess: false
        }
      }
    ]
  }
}

resource natIp 'Microsoft.Network/publicIPAddresses@2024-05-01' = {
  name: 'pip-${prefix}-nat'
  location: location
  sku: { name: 'Standard' }
  properties: { publicIPAllocationMethod: 'Static' }
}

resource natGateway 'Microsoft.Network/natGateways@2024-05-01' = {
  name: 'ng-${prefix}'
  location: location
  sku: { name: 'Standard' }
  properties: {
    publicIpAddresses: [{ id: natIp.id }]
  }
}

resource availabilitySet 'Microsoft.Compute/availabilitySets@2024-07-01' = {
  name: 'avail-${prefix}'
  location: location
  sku: { name: 'Aligned' } // managed disks
  properties: {
    platformFaultDomainCount: 2
    platformUpdateDomainCount: 5
  }
}

resource nics 'Microsoft.Network/networkInterfaces@2024-05-01' = [
  for i in range(0, availabilitySetVmCount): {
    name: 'nic-${prefix}-${i}'
    location: location
    properties: {
      ipConfigurations: [
        {
          name: 'ipconfig1'
          properties: {
            privateIPAllocationMethod: 'Dynamic'
            subnet: { id: vnet.properties.subnets[0].id }
          }
        }
      ]
    }
  }
]

resource vms 'Microsoft.Compute/virtualMachines@2024-07-01' = [
  for i in range(0, availabilitySetVmCount): {
    name: 'vm-${prefix}-${i}'
    location: location
    identity: identity
    properties: {
      availabilitySet: { id: availabilitySet.id }
      hardwareProfile: { vmSize: vmSize }
      osProfile: {
        computerName: 'vm-${prefix}-${i}'
        adminUsername: adminUsername
        linuxConfiguration: linuxConfiguration
      }
      storageProfile: {
        imageReference: imageReference
        osDisk: {
          createOption: 'FromImage'
          managedDisk: { storageAccountType: 'StandardSSD_LRS' }
          deleteOption: 'Delete'
        }
      }
      networkProfile: {
        networkInterfaces: [{ id: nics[i].id, properties: { deleteOption: 'Delete' } }]
      }
    }
  }
]

resource vmRelays 'Microsoft.Compute/virtualMachines/extensions@2024-07-01' = [
  for i in range(0, availabilitySetVmCount): {
    parent: vms[i]
    name: 'QuiesceRelay'
    location: location
    properties: extensionProperties('Linux', availabilitySetCluster, artifacts, relayVersion)
    // The download needs the reader role first.
    dependsOn: [artifactAccess]
  }
]

resource scaleSet 'Microsoft.Compute/virtualMachineScaleSets@2024-07-01' = {
  name: 'vmss-${prefix}'
  location: location
  sku: {
    name: vmSize
    tier: 'Standard'
    capacity: scaleSetCapacity
  }
  identity: identity
  properties: {
    orchestrationMode: 'Uniform'
    overprovision: false
    singlePlacementGroup: true
    upgradePolicy: { mode: 'Automatic' }
    virtualMachineProfile: {
      osProfile: {
        computerNamePrefix: 'vmss${take(replace(prefix, '-', ''), 8)}'
        adminUsername: adminUsername
        linuxConfiguration: linuxConfiguration
      }
      storageProfile: {
        imageReference: imageReference
        osDisk: {
          createOption: 'FromImage'
          managedDisk: { storageAccountType: 'StandardSSD_LRS' }
        }
      }
      networkProfile: {
        networkInterfaceConfigurations: [
          {
            name: 'nic'
            properties: {
              primary: true
              ipConfigurations: [
                {
                  name: 'ipconfig1'
                  properties: { subnet: { id: vnet.properties.subnets[0].id } }
                }
              ]
            }
          }
        ]
      }
      // Scale-set instances get the relay from the model: new instances install it on creation.
      extensionProfile: {
        extensions: [
          {
            name: 'QuiesceRelay'
            properties: extensionProperties('Linux', scaleSetCluster, artifacts, relayVersion)
          }
        ]
      }
    }
  }
  dependsOn: [artifactAccess]
}

output vmNames string[] = [for i in range(0, availabilitySetVmCount): vms[i].name]
output scaleSetName string = scaleSet.name
@description('Object ids to grant the Quiesce.Relay app role (scripts/entra/grant-relay-role.sh), with scaleSetPrincipalId.')
output vmPrincipalIds string[] = [for i in range(0, availabilitySetVmCount): vms[i].identity.principalId]
output scaleSetPrincipalId string = scaleSet.identity.principalId
