#!/usr/bin/env bash
# Restores the Bicep CLI (NuGet package Azure.Bicep.CommandLine.linux-x64) into .tools/bicep/
# with the .NET SDK, so the real compiler and linter can check infra/ without az or internet
# beyond NuGet. Exits 0 with a message when it cannot (no dotnet, NuGet unreachable, not
# linux-x64): callers then keep the tree-sitter syntax check only.
set -euo pipefail

VERSION="${BICEP_VERSION:-0.49.2}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools/bicep"
BIN="$TOOLS/bicep"

if [[ -x "$BIN" ]] && "$BIN" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "bicep $VERSION already restored: $BIN"
  exit 0
fi
if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "restore.sh: only linux-x64 is restored here; install bicep or az bicep instead" >&2
  exit 0
fi
if ! command -v dotnet >/dev/null 2>&1; then
  echo "restore.sh: no .NET SDK; skipping the Bicep CLI restore" >&2
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A throwaway project whose only purpose is PackageDownload: it fetches the package without
# adding it as a reference, which is how a tool package (no lib/ assets) is restored.
cat >"$work/restore.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net$(dotnet --version | cut -d. -f1-1).0</TargetFramework>
  </PropertyGroup>
  <ItemGroup>
    <PackageDownload Include="Azure.Bicep.CommandLine.linux-x64" Version="[$VERSION]" />
  </ItemGroup>
</Project>
XML

if ! timeout 300 dotnet restore "$work/restore.csproj" --packages "$work/packages" --nologo >"$work/restore.log" 2>&1; then
  echo "restore.sh: NuGet restore failed; keeping the tree-sitter check only. Last lines:" >&2
  tail -n 5 "$work/restore.log" >&2
  exit 0
fi

pkg="$work/packages/azure.bicep.commandline.linux-x64/$VERSION"
found="$(find "$pkg" -type f -name bicep | head -n 1)"
if [[ -z "$found" ]]; then
  echo "restore.sh: package restored but no bicep executable inside $pkg" >&2
  exit 0
fi
rm -rf "$TOOLS"
mkdir -p "$TOOLS"
cp -R "$(dirname "$found")"/. "$TOOLS"/
chmod +x "$BIN"
"$BIN" --version
