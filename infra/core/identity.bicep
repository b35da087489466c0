// The coordinator's user-assigned identity. User-assigned (not system-assigned) so its role
// assignments exist before the Function app starts, and survive re-creating the app.

param location string
param tags object
param name string

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
