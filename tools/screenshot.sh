#!/bin/sh
# tools/screenshot.sh -- a screenshot of a static site in headless Chromium.
#
#   sh tools/screenshot.sh SITE_DIR OUT.png [WIDTH,HEIGHT]
#
# Renders SITE_DIR/index.html (default size 1280,1600: the summary table
# and the first charts) with Debian's chromium, a fresh profile and no
# network features, and writes OUT.png.  `make demo` uses it for
# demo-out/site.png; docs/site.png (shown in README.md) is the demo's:
#   sh tools/screenshot.sh demo-out/site docs/site.png
# Exits 1 with a message when chromium is not installed (tools/deps.sh
# installs it) or writes no file.
set -eu
SITE=${1:?usage: sh tools/screenshot.sh SITE_DIR OUT.png [WIDTH,HEIGHT]}
OUTPNG=${2:?usage: sh tools/screenshot.sh SITE_DIR OUT.png [WIDTH,HEIGHT]}
SIZE=${3:-1280,1600}
command -v chromium >/dev/null 2>&1 || {
    echo "screenshot: chromium is not installed (tools/deps.sh installs it)" >&2
    exit 1
}
case $SITE in /*) ;; *) SITE=$(pwd)/$SITE ;; esac
case $OUTPNG in /*) ;; *) OUTPNG=$(pwd)/$OUTPNG ;; esac
PROFILE=$(mktemp -d /tmp/gpuidx-chromium-XXXXXX)
trap 'rm -rf "$PROFILE"' EXIT
rm -f "$OUTPNG"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$PROFILE" --window-size="$SIZE" \
    --screenshot="$OUTPNG" "file://$SITE/index.html" >/dev/null 2>&1 || true
[ -s "$OUTPNG" ] || { echo "screenshot: chromium wrote no $OUTPNG" >&2; exit 1; }
echo "screenshot: $OUTPNG"
