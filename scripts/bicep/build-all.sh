#!/usr/bin/env bash
# Compiles and lints every .bicep file under infra/ with the real Bicep compiler, showing every
# diagnostic. Fails on any error or linter warning (a warning is reviewed by fixing it, or by
# disabling that rule with a reason in infra/bicepconfig.json).
# The compiler: .tools/bicep (scripts/bicep/restore.sh), else `bicep` or `az bicep` on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
if ! BICEP="$(bash scripts/bicep/find-bicep.sh)"; then
  echo "build-all.sh: no Bicep CLI (run scripts/bicep/restore.sh, or install bicep / az bicep)" >&2
  exit 2
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
diagnostics=""
if [[ "$BICEP" == "az bicep" ]]; then
  # az bicep has no --pattern: one file at a time.
  while IFS= read -r file; do
    az bicep build --file "$file" --outfile "$out/$(echo "$file" | tr / _).json" 2>>"$out/diag" || status=1
    az bicep lint --file "$file" 2>>"$out/diag" || status=1
  done < <(find infra -name '*.bicep' | sort)
  diagnostics="$(cat "$out/diag" 2>/dev/null || true)"
else
  # One process per command: the CLI starts slowly, --pattern checks all files in one go.
  diagnostics+="$("$BICEP" build --pattern 'infra/**/*.bicep' --outdir "$out" 2>&1)" || status=1
  diagnostics+=$'\n'"$("$BICEP" lint --pattern 'infra/**/*.bicep' 2>&1)" || status=1
fi
if grep -qE ': (Error|Warning) ' <<<"$diagnostics"; then
  printf '%s\n' "$diagnostics" | grep -E ': (Error|Warning|Info) ' | sort -u
  status=1
fi
count="$(find infra -name '*.bicep' | wc -l)"
if [[ $status -ne 0 ]]; then
  echo "build-all.sh: Bicep errors or warnings in infra/ (see above)" >&2
else
  echo "build-all.sh: $count Bicep files compile and lint clean ($BICEP)"
fi
exit $status
