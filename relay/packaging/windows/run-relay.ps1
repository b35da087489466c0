<#
.SYNOPSIS
  Runs the Quiesce relay for the "Quiesce Relay" start-up task: restarts it whenever it exits
  (but for invalid settings, exit code 2) and appends its JSON log lines to a daily file in
  "$env:ProgramData\Quiesce\logs" (7 days kept). The relay writes them all on stdout on Windows.
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
  $code = $LASTEXITCODE
  # Exit code 2 is invalid settings (relay/src/cliArgs.ts EXIT.config): a restart fails the same
  # way, so stop here. Fix relay.json, then Start-ScheduledTask -TaskName 'Quiesce Relay'.
  if ($code -eq 2) {
    $line = '{{"time":"{0:o}","level":"error","msg":"relay refused its settings; not restarting","exitCode":{1}}}' -f (Get-Date).ToUniversalTime(), $code
    Add-Content -Path (Join-Path $LogDir ("relay-{0:yyyyMMdd}.log" -f (Get-Date))) -Value $line -Encoding UTF8
    exit $code
  }
  $line = '{{"time":"{0:o}","level":"warn","msg":"relay exited; restarting in 5 s","exitCode":{1}}}' -f (Get-Date).ToUniversalTime(), $code
  Add-Content -Path (Join-Path $LogDir ("relay-{0:yyyyMMdd}.log" -f (Get-Date))) -Value $line -Encoding UTF8
  Start-Sleep -Seconds 5
}
