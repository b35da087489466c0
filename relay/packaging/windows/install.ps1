<#
.SYNOPSIS
  Installs (or upgrades) the Quiesce relay on Windows as a start-up task that restarts on failure.
.DESCRIPTION
  Copies the relay to "$env:ProgramFiles\Quiesce\Relay", writes its settings to
  "$env:ProgramData\Quiesce\relay.json" (readable by SYSTEM and Administrators only), checks them,
  and registers the scheduled task "Quiesce Relay" that runs at start-up as SYSTEM through
  run-relay.ps1 (which restarts the relay whenever it exits and writes its JSON logs to
  "$env:ProgramData\Quiesce\logs"). Uses quiesce-relay.exe (single executable) when present in
  -From, else quiesce-relay.js with node.exe (>= 22) from PATH or -NodePath.
.EXAMPLE
  .\install.ps1 -ConfigFile .\relay.json
.EXAMPLE
  .\install.ps1 -SettingsBase64 eyJRVUlFU0NFX0NMVVNURVIiOiJ3ZWIifQ==
#>
[CmdletBinding()]
param(
  [string]$ConfigFile,
  [string]$SettingsBase64,
  [string]$From = $PSScriptRoot,
  [string]$NodePath,
  [switch]$NoStart
)
$ErrorActionPreference = 'Stop'
$TaskName = 'Quiesce Relay'
$InstallDir = Join-Path $env:ProgramFiles 'Quiesce\Relay'
$DataDir = Join-Path $env:ProgramData 'Quiesce'
$Config = Join-Path $DataDir 'relay.json'

$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) { throw 'install.ps1: run as Administrator' }

New-Item -ItemType Directory -Force -Path $InstallDir, $DataDir, (Join-Path $DataDir 'logs') | Out-Null
# Settings may hold hook commands: SYSTEM and Administrators only, no inheritance.
& icacls.exe $DataDir /inheritance:r /grant:r 'SYSTEM:(OI)(CI)F' 'Administrators:(OI)(CI)F' | Out-Null

# Stop a running relay first so its files can be replaced (it resumes from its state file).
if (Get-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue) {
  Stop-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue
  Get-CimInstance Win32_Process -Filter "Name='powershell.exe'" |
    Where-Object { $_.CommandLine -like '*run-relay.ps1*' } |
    ForEach-Object { Stop-Process -Id $_.ProcessId -Force -ErrorAction SilentlyContinue }
  Get-CimInstance Win32_Process |
    Where-Object { $_.CommandLine -like "*$InstallDir*quiesce-relay*" } |
    ForEach-Object { Stop-Process -Id $_.ProcessId -Force -ErrorAction SilentlyContinue }
}

$exe = Join-Path $From 'quiesce-relay.exe'
$bundle = Join-Path $From 'quiesce-relay.js'
if (Test-Path $exe) {
  Copy-Item $exe (Join-Path $InstallDir 'quiesce-relay.exe') -Force
  $program = Join-Path $InstallDir 'quiesce-relay.exe'
  $programArgs = @()
} elseif (Test-Path $bundle) {
  if (-not $NodePath) { $NodePath = (Get-Command node.exe -ErrorAction SilentlyContinue).Source }
  if (-not $NodePath) { throw 'install.ps1: quiesce-relay.js needs node.exe >= 22 (on PATH or -NodePath), or ship quiesce-relay.exe' }
  $major = [int](& $NodePath -p 'process.versions.node.split(".")[0]')
  if ($major -lt 22) { throw "install.ps1: node $major found; the relay needs node >= 22" }
  Copy-Item $bundle (Join-Path $InstallDir 'quiesce-relay.js') -Force
  $program = $NodePath
  $programArgs = @((Join-Path $InstallDir 'quiesce-relay.js'))
} else {
  throw "install.ps1: neither quiesce-relay.exe nor quiesce-relay.js found in $From"
}
Copy-Item (Join-Path $From 'run-relay.ps1') (Join-Path $InstallDir 'run-relay.ps1') -Force
Copy-Item (Join-Path $From 'uninstall.ps1') (Join-Path $InstallDir 'uninstall.ps1') -Force

if ($ConfigFile) {
  Copy-Item $ConfigFile $Config -Force
} elseif ($SettingsBase64) {
  $json = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($SettingsBase64))
  [IO.File]::WriteAllText($Config, $json, (New-Object Text.UTF8Encoding($false)))
}
if (-not (Test-Path $Config)) { throw "install.ps1: no settings: pass -ConfigFile or -SettingsBase64, or create $Config" }

# Refuse to install a relay that would not start: the message names the bad setting.
& $program @programArgs --config $Config --check-config | Out-Null
if ($LASTEXITCODE -ne 0) { throw "install.ps1: settings in $Config are invalid (see above)" }

# A start-up task, not a service (New-Service): a Windows service must answer the Service Control
# Manager, which Node.js (so the relay) does not, and a wrapper that does (NSSM, WinSW) would be one
# more program to ship and patch. The task runs the wrapper as SYSTEM at boot; the wrapper restarts
# the relay when it exits (but for invalid settings, exit code 2). The task's own restart settings
# cover a failure to start the wrapper (Task Scheduler allows at most 255 restarts).
$wrapper = Join-Path $InstallDir 'run-relay.ps1'
$argLine = "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$wrapper`" -Program `"$program`" -Config `"$Config`""
if ($programArgs.Count -gt 0) { $argLine += " -Bundle `"$($programArgs[0])`"" }
$action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument $argLine
$trigger = New-ScheduledTaskTrigger -AtStartup
$settings = New-ScheduledTaskSettingsSet -AllowStartIfOnBatteries -DontStopIfGoingOnBatteries `
  -ExecutionTimeLimit ([TimeSpan]::Zero) -RestartCount 255 -RestartInterval (New-TimeSpan -Minutes 1) `
  -MultipleInstances IgnoreNew -StartWhenAvailable
$taskPrincipal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest
Register-ScheduledTask -TaskName $TaskName -Action $action -Trigger $trigger -Settings $settings `
  -Principal $taskPrincipal -Description 'Quiesce relay: coordinates Azure Scheduled Events for this VM' -Force | Out-Null

if (-not $NoStart) {
  Start-ScheduledTask -TaskName $TaskName
  Write-Output "Quiesce relay installed and started; logs in $DataDir\logs"
} else {
  Write-Output 'Quiesce relay installed (not started)'
}
