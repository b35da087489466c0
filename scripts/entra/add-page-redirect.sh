#!/usr/bin/env bash
# Registers the status page as a single-page application (SPA) redirect URI of the coordinator's
# app registration, so MSAL in the page can sign users in (authorization code flow with PKCE).
# Keeps the redirect URIs already there. Idempotent. Runs after `azd provision` (azure.yaml's
# postprovision hook) once the Function app's host name is known.
#
#   scripts/entra/add-page-redirect.sh [--app <appId | api://appId>] [--url https://<host>/api/ui]
#     --app   defaults to QUIESCE_ENTRA_AUDIENCE (environment or azd environment)
#     --url   defaults to QUIESCE_STATUS_PAGE_URL (an azd output of infra/main.bicep)
#
# Needs az, logged in as an owner of the app registration (or Cloud Application Administrator).
set -euo pipefail

APP=""
URL=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --app) APP="${2#api://}"; shift 2 ;;
    --url) URL="$2"; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "add-page-redirect.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
azd_value() { command -v azd >/dev/null && azd env get-value "$1" 2>/dev/null || true; }
if [[ -z "$APP" ]]; then
  APP="${QUIESCE_ENTRA_AUDIENCE:-$(azd_value QUIESCE_ENTRA_AUDIENCE)}"
  APP="${APP%%,*}"; APP="${APP#api://}"
fi
[[ -z "$URL" ]] && URL="${QUIESCE_STATUS_PAGE_URL:-$(azd_value QUIESCE_STATUS_PAGE_URL)}"
if [[ -z "$APP" || -z "$URL" ]]; then
  echo "add-page-redirect.sh: need --app and --url (or QUIESCE_ENTRA_AUDIENCE and QUIESCE_STATUS_PAGE_URL)" >&2
  exit 2
fi
if [[ "$URL" != https://* ]]; then
  echo "add-page-redirect.sh: $URL: Entra accepts only https redirect URIs for a deployed page" >&2
  exit 2
fi

OBJECT_ID="$(az ad app show --id "$APP" --query id -o tsv)"
existing="$(az ad app show --id "$APP" --query "spa.redirectUris" -o json)"
uris="$(node -e 'const [a, u] = process.argv.slice(1); const l = JSON.parse(a) ?? []; if (!l.includes(u)) l.push(u); console.log(JSON.stringify(l));' "$existing" "$URL")"
az rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$OBJECT_ID" \
  --headers "Content-Type=application/json" --body "{\"spa\":{\"redirectUris\":$uris}}"
echo "status page sign-in: $URL is a SPA redirect URI of app $APP"
