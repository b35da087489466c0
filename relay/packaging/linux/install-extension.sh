#!/bin/sh
# Entry point of the Azure Custom Script extension (infra/relay/extension.bicep): the extension
# downloads this file and quiesce-relay-linux.tar.gz into its working folder and runs
#   bash install-extension.sh <settings as base64 JSON>
set -eu
[ $# -eq 1 ] || { echo "usage: install-extension.sh <settings-base64>" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
tar -xzf "$HERE/quiesce-relay-linux.tar.gz" -C "$WORK"
sh "$WORK/install.sh" --from "$WORK" --settings-base64 "$1"
