#!/bin/sh
# tools/deps.sh -- install the Debian packages gpuidx needs, only if missing.
#
# Checks each package with dpkg-query; runs apt-get (update once, then
# install) only when something is absent.  Needs root for the install.
set -eu
PKGS="build-essential pkg-config libsqlite3-dev sqlite3 libcsv-dev libgsl-dev
libjansson-dev libcmocka-dev libssl-dev zlib1g-dev python3-pandas"
missing=""
for p in $PKGS; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$st" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
