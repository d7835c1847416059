#!/bin/sh
# tools/deps.sh -- install the Debian packages gpuidx needs, only if missing.
#
# Checks each package with dpkg-query; runs apt-get (update once, then
# install) only when something is absent.  Needs root for the install.
# The build and test packages are required: a failed install stops.  The
# browser of the site's end-to-end test (tests/test_e2e_browser.c: Debian's
# chromium and a font for it) is wanted: when it cannot be installed (no
# network, no root) the script says so and succeeds, and that one test is
# skipped with the same message.
#
#   sh tools/deps.sh fuzz    also clang and its runtime (libFuzzer) for
#                            `make fuzz` (required then)
set -eu
PKGS="build-essential pkg-config libsqlite3-dev sqlite3 libcsv-dev libgsl-dev
libjansson-dev libcmocka-dev libssl-dev zlib1g-dev python3-pandas python3-statsmodels"
WANTED="chromium fonts-dejavu-core"
if [ "${1:-}" = fuzz ]; then
    PKGS="$PKGS clang libclang-rt-dev"
    WANTED=""
fi

missing_of() {
    m=""
    for p in "$@"; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case "$st" in
            *"install ok installed"*) ;;
            *) m="$m $p" ;;
        esac
    done
    echo "$m"
}

# shellcheck disable=SC2086
missing=$(missing_of $PKGS)
# shellcheck disable=SC2086
wanted=$(missing_of $WANTED)
[ -z "$missing$wanted" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || [ -z "$missing" ]
if [ -n "$missing" ]; then
    echo "deps: installing:$missing" >&2
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ -n "$wanted" ]; then
    echo "deps: installing (for the browser test):$wanted" >&2
    # shellcheck disable=SC2086
    if ! $SUDO apt-get install -y -qq --no-install-recommends $wanted >/dev/null; then
        echo "deps: could not install$wanted; the browser test will be skipped" >&2
    fi
fi
exit 0
