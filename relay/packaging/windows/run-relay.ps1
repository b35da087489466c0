<#
.SYNOPSIS
  Runs the Quiesce relay for the "Quiesce Relay" start-up task: restarts it whenever it exits and
  appends its JSON log lines to a daily file in "$env:ProgramData\Quiesce\logs" (7 days kept).
#>
param(
  [Parameter(Mandatory)][string]$Program,
  [Parameter(Mandatory)][string]$Config,
  [string]$Bundle
)
$ErrorActionPreference = 'Continue'
$LogDir = Join-Path $env:ProgramData 'Quiesce\logs'
New-Item -ItemType Directory -Force -Path $LogDir | Out-Null
$relayArgs = @()
if ($Bundle) { $relayArgs += $Bundle }
$relayArgs += @('--config', $Config)

while ($true) {
  Get-ChildItem $LogDir -Filter 'relay-*.log' | Where-Object { $_.LastWriteTime -lt (Get-Date).AddDays(-7) } | Remove-Item -ErrorAction SilentlyContinue
  & $Program @relayArgs 2>&1 | ForEach-Object {
    Add-Content -Path (Join-Path $LogDir ("relay-{0:yyyyMMdd}.log" -f (Get-Date))) -Value $_ -Encoding UTF8
  }
  $line = '{{"time":"{0:o}","level":"warn","msg":"relay exited; restarting in 5 s","exitCode":{1}}}' -f (Get-Date).ToUniversalTime(), $LASTEXITCODE
  Add-Content -Path (Join-Path $LogDir ("relay-{0:yyyyMMdd}.log" -f (Get-Date))) -Value $line -Encoding UTF8
  Start-Sleep -Seconds 5
}
