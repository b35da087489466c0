#!/bin/sh
# Removes the Quiesce relay service and program.
#   sudo ./uninstall.sh           keeps settings (/etc/quiesce-relay) and state (/var/lib/quiesce-relay)
#   sudo ./uninstall.sh --purge   removes them too
set -eu
D=${DESTDIR:-}
PURGE=0
case "${1:-}" in
  --purge) PURGE=1 ;;
  "") ;;
  -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
  *) echo "uninstall.sh: unknown argument $1" >&2; exit 1 ;;
esac
[ -n "$D" ] || [ "$(id -u)" = 0 ] || { echo "uninstall.sh: run as root" >&2; exit 1; }

if command -v systemctl >/dev/null; then
  # Stopping lets the relay record a running hook as interrupted in its state file.
  systemctl disable --now quiesce-relay.service 2>/dev/null || true
fi
rm -f "$D/etc/systemd/system/quiesce-relay.service"
command -v systemctl >/dev/null && systemctl daemon-reload || true
rm -rf "$D/opt/quiesce-relay"
if [ "$PURGE" = 1 ]; then
  rm -rf "$D/etc/quiesce-relay" "$D/var/lib/quiesce-relay"
  echo "quiesce-relay removed with its settings and state"
else
  echo "quiesce-relay removed; settings kept in /etc/quiesce-relay, state in /var/lib/quiesce-relay (--purge removes them)"
fi
