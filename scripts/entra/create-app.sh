#!/usr/bin/env bash
# Creates (or updates) the coordinator's Entra app registration: app roles Quiesce.Relay,
# Quiesce.Reader and Quiesce.Operator, identifier URI api://<appId>, its service principal
# (with app role assignment required), and prints the settings to use. Idempotent: re-running
# finds the app by display name and updates it.
#
#   scripts/entra/create-app.sh [--name quiesce-coordinator] [--azd] [--operator me|<object id>]
#                               [--page-url https://<host>/api/ui]
#     --azd        also store QUIESCE_ENTRA_AUDIENCE / QUIESCE_ENTRA_CLIENT_ID in the azd environment
#     --operator   grant Quiesce.Operator (and Reader) to you ("me") or to a user/group object id
#     --page-url   register the status page's SPA redirect URI now (azd does it after provisioning
#                  with add-page-redirect.sh; use this when the host name is already known)
#
# Needs az (logged in to the tenant) and permission to create app registrations (default for
# members unless restricted; otherwise Application Developer or Cloud Application Administrator).
set -euo pipefail

NAME="quiesce-coordinator"
USE_AZD=0
OPERATOR=""
PAGE_URL=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) NAME="$2"; shift 2 ;;
    --azd) USE_AZD=1; shift ;;
    --operator) OPERATOR="$2"; shift 2 ;;
    --page-url) PAGE_URL="$2"; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "create-app.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# Fixed role ids: the app's roles keep their ids across re-runs (assignments refer to them).
# Relay: Application only (managed identities are service principals). Reader/Operator: people,
# groups and automation.
roles_file="$(mktemp)"
trap 'rm -f "$roles_file"' EXIT
cat >"$roles_file" <<'JSON'
[
  { "id": "874b5fb3-be4d-488a-a78b-3d9e4ba0a376", "allowedMemberTypes": ["Application"],
    "displayName": "Quiesce relay", "description": "Report a VM's Scheduled Events to the coordinator",
    "isEnabled": true, "value": "Quiesce.Relay" },
  { "id": "a588ba0c-7308-4ba9-bbe8-21626467602e", "allowedMemberTypes": ["User", "Application"],
    "displayName": "Quiesce reader", "description": "Read clusters, members and events",
    "isEnabled": true, "value": "Quiesce.Reader" },
  { "id": "4c701324-fbe7-4b09-a7b7-73165f5cd0d0", "allowedMemberTypes": ["User", "Application"],
    "displayName": "Quiesce operator", "description": "Hold, release and force-approve events",
    "isEnabled": true, "value": "Quiesce.Operator" }
]
JSON

APP_ID="$(az ad app list --display-name "$NAME" --query "[0].appId" -o tsv)"
if [[ -z "$APP_ID" ]]; then
  APP_ID="$(az ad app create --display-name "$NAME" --sign-in-audience AzureADMyOrg --app-roles "@$roles_file" --query appId -o tsv)"
  echo "created app registration $NAME ($APP_ID)"
else
  az ad app update --id "$APP_ID" --app-roles "@$roles_file"
  echo "updated app registration $NAME ($APP_ID)"
fi
az ad app update --id "$APP_ID" --identifier-uris "api://$APP_ID"

# A delegated scope, pre-authorized for the Azure CLI, so operators can call the status and
# operator API with `az account get-access-token --resource api://<appId>` (their app roles
# are in that token) without a consent prompt.
APP_OBJECT_ID="$(az ad app show --id "$APP_ID" --query id -o tsv)"
SCOPE_ID="9b3f5d0e-6a43-4c1e-9a7c-5d0c2b7e8f11"
AZURE_CLI_APP_ID="04b07795-8ddb-461a-bbee-02f9e1bf7b46"
az rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$APP_OBJECT_ID" \
  --headers "Content-Type=application/json" --body "{\"api\":{\"oauth2PermissionScopes\":[{
    \"id\":\"$SCOPE_ID\",\"value\":\"user_impersonation\",\"type\":\"User\",\"isEnabled\":true,
    \"adminConsentDisplayName\":\"Access the Quiesce coordinator\",
    \"adminConsentDescription\":\"Call the Quiesce coordinator API as the signed-in user (app roles still apply).\",
    \"userConsentDisplayName\":\"Access the Quiesce coordinator\",
    \"userConsentDescription\":\"Call the Quiesce coordinator API as you.\"}]}}"
az rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$APP_OBJECT_ID" \
  --headers "Content-Type=application/json" --body "{\"api\":{\"preAuthorizedApplications\":[{
    \"appId\":\"$AZURE_CLI_APP_ID\",\"delegatedPermissionIds\":[\"$SCOPE_ID\"]}]}}"

SP_ID="$(az ad sp list --filter "appId eq '$APP_ID'" --query "[0].id" -o tsv)"
if [[ -z "$SP_ID" ]]; then
  SP_ID="$(az ad sp create --id "$APP_ID" --query id -o tsv)"
fi
# Entra then issues tokens for the coordinator only to identities holding one of its roles.
az ad sp update --id "$SP_ID" --set appRoleAssignmentRequired=true

assign() { # principal object id, role value
  local role_id
  role_id="$(az ad sp show --id "$SP_ID" --query "appRoles[?value=='$2'].id | [0]" -o tsv)"
  local existing
  existing="$(az rest --method GET \
    --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$SP_ID/appRoleAssignedTo?\$top=999" \
    --query "length(value[?principalId=='$1' && appRoleId=='$role_id'])" -o tsv)"
  if [[ "$existing" != "0" ]]; then
    echo "$2 already assigned to $1"
    return
  fi
  az rest --method POST --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$SP_ID/appRoleAssignedTo" \
    --headers "Content-Type=application/json" \
    --body "{\"principalId\":\"$1\",\"resourceId\":\"$SP_ID\",\"appRoleId\":\"$role_id\"}" >/dev/null
  echo "assigned $2 to $1"
}
if [[ -n "$OPERATOR" ]]; then
  [[ "$OPERATOR" == "me" ]] && OPERATOR="$(az ad signed-in-user show --query id -o tsv)"
  assign "$OPERATOR" Quiesce.Operator
  assign "$OPERATOR" Quiesce.Reader
fi

if [[ -n "$PAGE_URL" ]]; then
  "$(dirname "$0")/add-page-redirect.sh" --app "$APP_ID" --url "$PAGE_URL"
fi

if [[ $USE_AZD -eq 1 ]]; then
  azd env set QUIESCE_ENTRA_AUDIENCE "api://$APP_ID"
  azd env set QUIESCE_ENTRA_CLIENT_ID "$APP_ID"
fi

cat <<TXT

Coordinator app registration: $NAME
  appId (client id)        $APP_ID
  service principal id     $SP_ID
  tenant                   $(az account show --query tenantId -o tsv)
For azd (if you did not pass --azd):
  azd env set QUIESCE_ENTRA_AUDIENCE api://$APP_ID
  azd env set QUIESCE_ENTRA_CLIENT_ID $APP_ID
The coordinator accepts aud api://$APP_ID and $APP_ID (QUIESCE_ENTRA_AUDIENCE=api://$APP_ID,$APP_ID);
relays request tokens for api://$APP_ID (relay QUIESCE_ENTRA_AUDIENCE=api://$APP_ID).
Next, after azd up: scripts/entra/grant-coordinator-graph.sh, then
scripts/entra/grant-relay-role.sh for the VMs (docs/deploy.md).
TXT
