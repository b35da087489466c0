#!/usr/bin/env bash
# Uploads artifacts/relay/ (npm run package) to the relay container of the coordinator's storage
# account, under <version>/, with your Entra login (shared keys are disabled on the account).
# The account and container come from the azd environment (azd env get-values), or from
# QUIESCE_STORAGE_ACCOUNT / QUIESCE_RELAY_CONTAINER in the environment.
# Needs: az (logged in), Storage Blob Data Contributor on the container (main.bicep grants it to
# the deploying principal, AZURE_PRINCIPAL_ID).
# Prints the folder URL to pass to the extension modules (relayArtifactsUrl / artifacts.baseUrl).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SRC="$ROOT/artifacts/relay"

if [[ -z "${QUIESCE_STORAGE_ACCOUNT:-}" ]] && command -v azd >/dev/null 2>&1; then
  # azd prints KEY="value" lines; take only the two we need.
  while IFS='=' read -r key value; do
    value="${value%\"}"; value="${value#\"}"
    case "$key" in
      QUIESCE_STORAGE_ACCOUNT | QUIESCE_RELAY_CONTAINER) export "$key=$value" ;;
    esac
  done < <(cd "$ROOT" && azd env get-values 2>/dev/null || true)
fi
: "${QUIESCE_STORAGE_ACCOUNT:?set QUIESCE_STORAGE_ACCOUNT (azd output) or run from an azd environment}"
CONTAINER="${QUIESCE_RELAY_CONTAINER:-relay}"
[[ -f "$SRC/VERSION" ]] || { echo "upload-relay.sh: $SRC is empty; run npm run package first" >&2; exit 1; }
VERSION="$(cat "$SRC/VERSION")"

# A role assignment made by the provisioning a minute ago can take a few minutes to apply.
for attempt in 1 2 3 4 5 6; do
  if az storage blob upload-batch --auth-mode login --only-show-errors \
    --account-name "$QUIESCE_STORAGE_ACCOUNT" --destination "$CONTAINER" \
    --destination-path "$VERSION" --source "$SRC" --overwrite true >/dev/null; then
    endpoint="$(az storage account show -n "$QUIESCE_STORAGE_ACCOUNT" --query primaryEndpoints.blob -o tsv)"
    echo "relay $VERSION uploaded: ${endpoint}${CONTAINER}/${VERSION}"
    exit 0
  fi
  echo "upload-relay.sh: upload failed (attempt $attempt); retrying in 30 s (role assignments may still be propagating)" >&2
  sleep 30
done
echo "upload-relay.sh: giving up; check that you hold Storage Blob Data Contributor on $QUIESCE_STORAGE_ACCOUNT/$CONTAINER" >&2
exit 1
