#!/bin/sh
# bench/run.sh -- run every benchmark script in bench/ (make bench).
#   sh bench/run.sh [GPUIDX_BIN]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/gpuidx}
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac
status=0
for b in "$here"/*; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    case "$(basename "$b")" in run.sh|*.md) continue ;; esac
    echo "== $(basename "$b")"
    nice "$b" "$bin" || status=1
done
exit $status
