#!/bin/sh
# Installs (or upgrades) the Quiesce relay as the systemd service quiesce-relay.
#   sudo ./install.sh --config relay.json          settings from a JSON file
#   sudo ./install.sh --settings-base64 <b64>      settings as base64 JSON (VM extension)
#   sudo ./install.sh                              keep /etc/quiesce-relay/relay.json as it is
# Options: --from DIR (where the artifacts are; default: this script's folder), --no-start.
# DESTDIR=/some/root installs under that root instead of / (packaging and tests; no root needed).
# Artifacts used from DIR: quiesce-relay (single executable, preferred) or quiesce-relay.js
# (single-file bundle, needs node >= 22 on PATH), and quiesce-relay.service.
set -eu

D=${DESTDIR:-}
PREFIX=/opt/quiesce-relay
CONF_DIR=/etc/quiesce-relay
CONF="$CONF_DIR/relay.json"
UNIT=/etc/systemd/system/quiesce-relay.service
FROM=$(cd "$(dirname "$0")" && pwd)
CONFIG_FILE=""
SETTINGS_B64=""
START=1

die() { echo "install.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --config) [ $# -ge 2 ] || die "--config needs a file"; CONFIG_FILE=$2; shift 2 ;;
    --settings-base64) [ $# -ge 2 ] || die "--settings-base64 needs a value"; SETTINGS_B64=$2; shift 2 ;;
    --from) [ $# -ge 2 ] || die "--from needs a folder"; FROM=$2; shift 2 ;;
    --no-start) START=0; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done

[ -n "$D" ] || [ "$(id -u)" = 0 ] || die "run as root"
command -v systemctl >/dev/null || die "systemd is required"
[ -f "$FROM/quiesce-relay.service" ] || die "quiesce-relay.service not found in $FROM"

umask 077
mkdir -p "$D$PREFIX" "$D$CONF_DIR" "$D/var/lib/quiesce-relay" "$D$(dirname "$UNIT")"
chmod 755 "$D$PREFIX"

# The executable: the standalone one if shipped and this is the x86_64 it was built for, else the
# bundle run by the system's node (arm64 VMs and others).
ARCH=${QUIESCE_INSTALL_ARCH:-$(uname -m)}
if [ -f "$FROM/quiesce-relay" ] && [ "$ARCH" = "x86_64" ]; then
  install -m 755 "$FROM/quiesce-relay" "$D$PREFIX/quiesce-relay.new"
  mv -f "$D$PREFIX/quiesce-relay.new" "$D$PREFIX/quiesce-relay"
  EXEC="$PREFIX/quiesce-relay"
  RUN="$D$PREFIX/quiesce-relay"
elif [ -f "$FROM/quiesce-relay.js" ]; then
  NODE=$(command -v node) || die "quiesce-relay.js needs node >= 22 on PATH (or ship the quiesce-relay executable)"
  MAJOR=$("$NODE" -p 'process.versions.node.split(".")[0]')
  [ "$MAJOR" -ge 22 ] || die "node $MAJOR found; the relay needs node >= 22"
  install -m 644 "$FROM/quiesce-relay.js" "$D$PREFIX/quiesce-relay.js"
  EXEC="$NODE $PREFIX/quiesce-relay.js"
  RUN="$NODE $D$PREFIX/quiesce-relay.js"
else
  die "neither a usable quiesce-relay (x86_64 only; this is $ARCH) nor quiesce-relay.js found in $FROM"
fi

# Settings: the file holds the relay key or hook commands, so root-only.
if [ -n "$CONFIG_FILE" ]; then
  install -m 600 "$CONFIG_FILE" "$D$CONF.new" && mv -f "$D$CONF.new" "$D$CONF"
elif [ -n "$SETTINGS_B64" ]; then
  printf '%s' "$SETTINGS_B64" | base64 -d > "$D$CONF.new" || die "--settings-base64 is not base64"
  chmod 600 "$D$CONF.new" && mv -f "$D$CONF.new" "$D$CONF"
fi
[ -f "$D$CONF" ] || die "no settings: pass --config FILE or --settings-base64, or create $CONF"

# Refuse to install a relay that would not start: the message names the bad setting.
# shellcheck disable=SC2086
$RUN --config "$D$CONF" --check-config >/dev/null || die "settings in $CONF are invalid (see above)"

sed "s#@EXEC@#$EXEC#" "$FROM/quiesce-relay.service" > "$D$UNIT.new"
chmod 644 "$D$UNIT.new" && mv -f "$D$UNIT.new" "$D$UNIT"
systemctl daemon-reload
systemctl enable quiesce-relay.service >/dev/null
if [ "$START" = 1 ]; then
  systemctl restart quiesce-relay.service
  echo "quiesce-relay installed and started; logs: journalctl -u quiesce-relay -f -o cat"
else
  echo "quiesce-relay installed (not started)"
fi
