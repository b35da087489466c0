<#
.SYNOPSIS
  Entry point of the Azure Custom Script extension on Windows (infra/relay/extension.bicep): the
  extension downloads this file and quiesce-relay-windows.zip into its working folder and runs
    powershell -ExecutionPolicy Bypass -File install-extension.ps1 -SettingsBase64 <base64 JSON>
#>
param([Parameter(Mandatory)][string]$SettingsBase64)
$ErrorActionPreference = 'Stop'
$work = Join-Path $env:TEMP ("quiesce-relay-" + [Guid]::NewGuid().ToString('N'))
Expand-Archive -Path (Join-Path $PSScriptRoot 'quiesce-relay-windows.zip') -DestinationPath $work -Force
try {
  & (Join-Path $work 'install.ps1') -From $work -SettingsBase64 $SettingsBase64
} finally {
  Remove-Item -Recurse -Force $work -ErrorAction SilentlyContinue
}
