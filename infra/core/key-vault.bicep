// Key Vault for the notification secrets: webhook URLs (whoever holds one can post to the
// channel) and the generic webhook's HMAC key. RBAC authorization; the coordinator's identity
// reads them (Key Vault Secrets User) through Key Vault references in its app settings, so they
// are never in the app's configuration, the repository or the logs. A secret left empty is not
// created and its sink stays off.

import { builtInRoles } from '../shared/roles.bicep'
import { notificationSecrets } from '../shared/notification-secrets.bicep'

param location string
param tags object
param name string

@description('Principal (object) id of the coordinator\'s user-assigned identity.')
param appPrincipalId string

@secure()
param teamsWebhookUrl string = ''
@secure()
param slackWebhookUrl string = ''
@secure()
param webhookUrl string = ''
@secure()
param webhookSecret string = ''

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: { family: 'A', name: 'standard' }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 7
    enablePurgeProtection: true
  }
}

var secrets = [
  { name: notificationSecrets.teams.secretName, value: teamsWebhookUrl }
  { name: notificationSecrets.slack.secretName, value: slackWebhookUrl }
  { name: notificationSecrets.webhookUrl.secretName, value: webhookUrl }
  { name: notificationSecrets.webhookSecret.secretName, value: webhookSecret }
]

resource secret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = [
  for s in secrets: if (!empty(s.value)) {
    parent: vault
    name: s.name
    properties: { value: s.value }
  }
]

resource appSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, appPrincipalId, builtInRoles.keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId(
      'Microsoft.Authorization/roleDefinitions',
      builtInRoles.keyVaultSecretsUser
    )
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

output name string = vault.name
