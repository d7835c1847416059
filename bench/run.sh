#!/bin/sh
# bench/run.sh -- `make bench`: run every benchmark script in bench/ with the
# binary under test; each prints its own figures (see BENCHMARKS.md).
set -eu
BIN=${1:-build/gpuidx}
here=$(cd "$(dirname "$0")" && pwd)
for b in ingest index accuracy; do
    if [ -f "$here/$b" ]; then
        echo "== bench/$b"
        sh "$here/$b" "$BIN"
    fi
done
