#!/bin/sh
# bench/run.sh -- `make bench`: run every benchmark script in bench/ with the
# binary under test; each prints its own figures, which go to the terminal
# and to bench-out/NAME.md, and then into BENCHMARKS.md's latest figures
# (tools/docs.py update --bench bench-out BENCHMARKS.md; a report not
# written leaves its figures as they are).
#
#   BENCH="ingest index" sh bench/run.sh [build/gpuidx]   (default: all four)
#   REAL=FILE.csv.gz: the real feed bench/ingest reads (default: the
#   project's ../shared/data/real catalogue; without it ingest is left out)
set -eu
BIN=${1:-build/gpuidx}
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
out=$src/bench-out
REAL=${REAL:-$(dirname "$src")/shared/data/real/skypilot_offers_canonical.csv.gz}
mkdir -p "$out"
for b in ${BENCH:-ingest index accuracy daily}; do
    [ -f "$here/$b" ] || continue
    echo "== bench/$b"
    case $b in
        ingest)
            if [ ! -f "$REAL" ]; then
                echo "(left out: no real feed at $REAL; set REAL=FILE)"
                continue
            fi
            sh "$here/$b" "$BIN" "$REAL" | tee "$out/$b.md" ;;
        *) sh "$here/$b" "$BIN" | tee "$out/$b.md" ;;
    esac
done
python3 "$src/tools/docs.py" update --bin "$BIN" --bench "$out" --only bench "$src/BENCHMARKS.md"
