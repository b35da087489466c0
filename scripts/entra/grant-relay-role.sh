#!/usr/bin/env bash
# Grants the Quiesce.Relay app role of the coordinator's app registration to VM identities, so
# their relays get tokens the coordinator accepts. Use the system-assigned identities of VMs or
# scale sets: the coordinator binds a token to the machine of a system-assigned identity
# (docs/auth.md). Idempotent.
#
#   scripts/entra/grant-relay-role.sh --app <appId | api://appId> [targets...]
#     --vm <resource group>/<name>      a VM (its system-assigned identity is enabled if missing)
#     --vmss <resource group>/<name>    a scale set (same)
#     --resource-group <name>           every VM and scale set in the group
#     --principal <object id>           an identity's service principal object id
#
# Needs az, and a directory role that may assign app roles (Cloud Application Administrator,
# Application Administrator, or owner of the app's service principal) or the Graph permission
# AppRoleAssignment.ReadWrite.All.
set -euo pipefail

APP=""
principals=()
vm_identity() { # kind rg name
  local id
  id="$(az "$1" show -g "$2" -n "$3" --query identity.principalId -o tsv 2>/dev/null || true)"
  if [[ -z "$id" || "$id" == "None" ]]; then
    # Keeps any user-assigned identities; adds the system-assigned one.
    id="$(az "$1" identity assign -g "$2" -n "$3" --query systemAssignedIdentity -o tsv)"
  fi
  echo "$id"
}
split() { [[ "$1" == */* ]] || { echo "expected <resource group>/<name>, got $1" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --app) APP="${2#api://}"; shift 2 ;;
    --vm) split "$2"; principals+=("$(vm_identity vm "${2%%/*}" "${2#*/}")"); shift 2 ;;
    --vmss) split "$2"; principals+=("$(vm_identity vmss "${2%%/*}" "${2#*/}")"); shift 2 ;;
    --resource-group)
      while IFS= read -r name; do [[ -n "$name" ]] && principals+=("$(vm_identity vm "$2" "$name")"); done \
        < <(az vm list -g "$2" --query "[].name" -o tsv)
      while IFS= read -r name; do [[ -n "$name" ]] && principals+=("$(vm_identity vmss "$2" "$name")"); done \
        < <(az vmss list -g "$2" --query "[].name" -o tsv)
      shift 2 ;;
    --principal) principals+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "grant-relay-role.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$APP" && -n "${QUIESCE_ENTRA_AUDIENCE:-}" ]]; then APP="${QUIESCE_ENTRA_AUDIENCE#api://}"; fi
[[ -n "$APP" ]] || { echo "grant-relay-role.sh: --app <appId> is required" >&2; exit 2; }
[[ ${#principals[@]} -gt 0 ]] || { echo "grant-relay-role.sh: no identities given (see --help)" >&2; exit 2; }

SP_ID="$(az ad sp show --id "$APP" --query id -o tsv)"
ROLE_ID="$(az ad sp show --id "$APP" --query "appRoles[?value=='Quiesce.Relay'].id | [0]" -o tsv)"
[[ -n "$ROLE_ID" ]] || { echo "grant-relay-role.sh: app $APP has no Quiesce.Relay role (run create-app.sh)" >&2; exit 1; }
assigned="$(az rest --method GET \
  --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$SP_ID/appRoleAssignedTo?\$top=999" \
  --query "value[?appRoleId=='$ROLE_ID'].principalId" -o tsv)"

for principal in "${principals[@]}"; do
  if grep -qx "$principal" <<<"$assigned"; then
    echo "Quiesce.Relay already assigned to $principal"
    continue
  fi
  az rest --method POST --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$SP_ID/appRoleAssignedTo" \
    --headers "Content-Type=application/json" \
    --body "{\"principalId\":\"$principal\",\"resourceId\":\"$SP_ID\",\"appRoleId\":\"$ROLE_ID\"}" >/dev/null
  echo "Quiesce.Relay assigned to $principal"
done
echo "New assignments reach a VM with its next token (the relay retries; allow minutes, up to hours for a cached token)."
