#!/usr/bin/env bash
# Grants the coordinator's managed identity the Microsoft Graph application permission
# Application.Read.All, with which it finds the VM behind a relay's managed identity (tokens for a
# customer app carry no xms_mirid / xms_az_rid; docs/auth.md, "Let the coordinator find which VM
# an identity is"). Idempotent.
#
#   scripts/entra/grant-coordinator-graph.sh [--principal <object id>]
# Without --principal, the identity is read from the azd environment (QUIESCE_FUNCTION_APP_NAME,
# AZURE_RESOURCE_GROUP): the coordinator's user-assigned identity.
# Needs a Privileged Role Administrator or Global Administrator (admin consent for Graph).
set -euo pipefail
PRINCIPAL=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --principal) PRINCIPAL="$2"; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "grant-coordinator-graph.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$PRINCIPAL" ]]; then
  eval "$(azd env get-values | grep -E '^(QUIESCE_FUNCTION_APP_NAME|AZURE_RESOURCE_GROUP)=')"
  PRINCIPAL="$(az functionapp identity show -g "$AZURE_RESOURCE_GROUP" -n "$QUIESCE_FUNCTION_APP_NAME" \
    --query "userAssignedIdentities.*.principalId | [0]" -o tsv)"
fi
[[ -n "$PRINCIPAL" ]] || { echo "grant-coordinator-graph.sh: no principal found; pass --principal" >&2; exit 2; }

GRAPH_APP=00000003-0000-0000-c000-000000000000
GRAPH_SP="$(az ad sp show --id "$GRAPH_APP" --query id -o tsv)"
ROLE_ID="$(az ad sp show --id "$GRAPH_APP" --query "appRoles[?value=='Application.Read.All'].id | [0]" -o tsv)"
existing="$(az rest --method GET --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$PRINCIPAL/appRoleAssignments" \
  --query "length(value[?appRoleId=='$ROLE_ID' && resourceId=='$GRAPH_SP'])" -o tsv)"
if [[ "$existing" != "0" ]]; then
  echo "Application.Read.All already granted to $PRINCIPAL"
  exit 0
fi
az rest --method POST --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$GRAPH_SP/appRoleAssignedTo" \
  --headers "Content-Type=application/json" \
  --body "{\"principalId\":\"$PRINCIPAL\",\"resourceId\":\"$GRAPH_SP\",\"appRoleId\":\"$ROLE_ID\"}" >/dev/null
echo "Application.Read.All granted to $PRINCIPAL"
