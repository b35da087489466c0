<#
.SYNOPSIS
  Removes the Quiesce relay start-up task and program. -Purge also removes its settings, state
  and logs ("$env:ProgramData\Quiesce").
#>
[CmdletBinding()]
param([switch]$Purge)
$ErrorActionPreference = 'Stop'
$TaskName = 'Quiesce Relay'
$InstallDir = Join-Path $env:ProgramFiles 'Quiesce\Relay'
$DataDir = Join-Path $env:ProgramData 'Quiesce'

if (Get-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue) {
  Stop-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue
  Unregister-ScheduledTask -TaskName $TaskName -Confirm:$false
}
# The task's wrapper and the relay it started.
Get-CimInstance Win32_Process -Filter "Name='powershell.exe'" |
  Where-Object { $_.CommandLine -like '*run-relay.ps1*' } |
  ForEach-Object { Stop-Process -Id $_.ProcessId -Force -ErrorAction SilentlyContinue }
Get-CimInstance Win32_Process |
  Where-Object { $_.CommandLine -like "*$InstallDir*quiesce-relay*" } |
  ForEach-Object { Stop-Process -Id $_.ProcessId -Force -ErrorAction SilentlyContinue }

if (Test-Path $InstallDir) { Remove-Item -Recurse -Force $InstallDir }
if ($Purge) {
  if (Test-Path $DataDir) { Remove-Item -Recurse -Force $DataDir }
  Write-Output 'Quiesce relay removed with its settings, state and logs'
} else {
  Write-Output "Quiesce relay removed; settings, state and logs kept in $DataDir (-Purge removes them)"
}
