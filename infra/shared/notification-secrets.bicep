// Key Vault secret names of the notification sinks, and the coordinator settings that reference
// them (functions/src/config.ts; docs/operations.md). One place, so the vault and the app agree.

@export()
var notificationSecrets = {
  teams: { secretName: 'teams-webhook-url', setting: 'QUIESCE_TEAMS_WEBHOOK_URL' }
  slack: { secretName: 'slack-webhook-url', setting: 'QUIESCE_SLACK_WEBHOOK_URL' }
  webhookUrl: { secretName: 'webhook-url', setting: 'QUIESCE_WEBHOOK_URL' }
  webhookSecret: { secretName: 'webhook-hmac-key', setting: 'QUIESCE_WEBHOOK_SECRET' }
}
