#!/usr/bin/env bash
# Prints the command that runs the Bicep CLI, preferring the restored .tools/bicep, then `bicep`
# on PATH, then `az bicep`. Prints nothing (exit 1) when there is none.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ -x "$ROOT/.tools/bicep/bicep" ]]; then
  echo "$ROOT/.tools/bicep/bicep"
elif command -v bicep >/dev/null 2>&1; then
  command -v bicep
elif command -v az >/dev/null 2>&1 && az bicep version >/dev/null 2>&1; then
  echo "az bicep"
else
  exit 1
fi
