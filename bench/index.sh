#!/bin/sh
# bench/index.sh -- CSV -> published index, end to end: gpuidx vs pandas.
#
#   sh bench/index.sh [path/to/gpuidx]
#   env: SCALE (default 52: ~10 million observations in a year), DAYS (365),
#        SEED (1), WORK (scratch directory, default a new one under /tmp)
#
# 1. gpuidx simulate writes the market (not timed).
# 2. gpuidx, timed as one unit with /usr/bin/time -v: ingest offers, ingest
#    trades, index build over the year with bench/grades20.json (20 grades),
#    index publish of the last day.  Peak memory is the largest process.
# 3. bench/pandas_pipeline.py on the same CSV files, timed the same way.
# 4. Both outputs are compared grade-day by grade-day (level and value).
# Prints a Markdown section for BENCHMARKS.md.  Runs under nice.
set -eu
BIN=${1:-build/gpuidx}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCALE=${SCALE:-52}
DAYS=${DAYS:-365}
SEED=${SEED:-1}
WORK=${WORK:-$(mktemp -d /tmp/gpuidx-bench-XXXXXX)}
START=2025-01-01
END=$(date -u -d "$START + $((DAYS - 1)) days" +%Y-%m-%d)
GRADES=$SRC/bench/grades20.json
PY=/usr/bin/python3
mkdir -p "$WORK"
rm -rf "$WORK/db.sqlite"* "$WORK/publish"

echo "bench/index: market $DAYS days x scale $SCALE (seed $SEED) in $WORK" >&2
nice "$BIN" simulate --days "$DAYS" --seed "$SEED" --scale "$SCALE" --start $START \
    --out "$WORK/market" >&2
ROWS=$(($(wc -l <"$WORK/market/offers.csv") + $(wc -l <"$WORK/market/trades.csv") - 2))
BYTES=$(($(stat -c %s "$WORK/market/offers.csv") + $(stat -c %s "$WORK/market/trades.csv")))

echo "bench/index: gpuidx ingest + build + publish" >&2
/usr/bin/time -v -o "$WORK/gpuidx.time" nice sh -c "
  set -e
  '$BIN' --db '$WORK/db.sqlite' ingest offers '$WORK/market/offers.csv'
  '$BIN' --db '$WORK/db.sqlite' ingest trades '$WORK/market/trades.csv'
  '$BIN' --db '$WORK/db.sqlite' index build --grades '$GRADES' --from $START --to $END
  '$BIN' --db '$WORK/db.sqlite' index publish --date $END --out '$WORK/publish'
" >"$WORK/gpuidx.log" 2>&1 || { cat "$WORK/gpuidx.log" >&2; exit 1; }
"$BIN" --db "$WORK/db.sqlite" index show --from $START --to $END >"$WORK/gpuidx.csv"

echo "bench/index: pandas pipeline" >&2
/usr/bin/time -v -o "$WORK/pandas.time" nice $PY "$SRC/bench/pandas_pipeline.py" \
    --offers "$WORK/market/offers.csv" --trades "$WORK/market/trades.csv" \
    --grades "$GRADES" --data "$SRC/data" --from $START --to $END \
    --out "$WORK/pandas.csv" >"$WORK/pandas.log" 2>&1 || { cat "$WORK/pandas.log" >&2; exit 1; }

secs() { # wall clock "h:mm:ss" or "m:ss.ss" -> seconds
    sed -n 's/.*Elapsed (wall clock) time.*: //p' "$1" |
        awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }'
}
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
G_S=$(secs "$WORK/gpuidx.time"); P_S=$(secs "$WORK/pandas.time")
G_KB=$(rss "$WORK/gpuidx.time"); P_KB=$(rss "$WORK/pandas.time")

AGREE=$($PY - "$WORK/gpuidx.csv" "$WORK/pandas.csv" <<'PYEOF'
import sys, pandas as pd
g = pd.read_csv(sys.argv[1], dtype=str).fillna("")
p = pd.read_csv(sys.argv[2], dtype=str).fillna("")
m = g.merge(p, on=["date", "grade"], suffixes=("_g", "_p"))
lvl = (m.level_g == m.level_p)
val = lvl & (m.value_g == m.value_p)
print("%d grade-days compared: level agrees on %d (%.1f %%), level and value on %d (%.1f %%)"
      % (len(m), lvl.sum(), 100 * lvl.mean(), val.sum(), 100 * val.mean()))
PYEOF
)

awk -v g="$G_S" -v p="$P_S" -v gk="$G_KB" -v pk="$P_KB" -v rows="$ROWS" -v bytes="$BYTES" \
    -v days="$DAYS" -v scale="$SCALE" -v agree="$AGREE" -v cpu="$(nproc)" \
    -v ver="$($PY -c 'import pandas; print(pandas.__version__)')" 'BEGIN {
  printf "## Index end to end\n\n"
  printf "CSV -> published index for one year of a synthetic market, measured side by\n"
  printf "side in one run of `bench/index.sh` (%d cores, shared machine, under `nice`).\n\n", cpu
  printf "- market: `gpuidx simulate --days %d --seed 1 --scale %d`: %d observations\n", days, scale, rows
  printf "  (%.0f MB of canonical CSV), 20 grades (`bench/grades20.json`)\n", bytes / 1e6
  printf "- gpuidx: `ingest offers` + `ingest trades` + `index build` (whole year) +\n"
  printf "  `index publish` (last day), four processes, timed together\n"
  printf "- pandas %s: `bench/pandas_pipeline.py` (same normalisation and method; see its\n", ver
  printf "  docstring for the simplifications), one process\n\n"
  printf "| | wall time | peak memory (max RSS) |\n|---|---:|---:|\n"
  printf "| gpuidx | %.1f s | %.0f MB |\n", g, gk / 1024
  printf "| pandas | %.1f s | %.0f MB |\n", p, pk / 1024
  printf "| ratio (pandas / gpuidx) | **%.1fx** | %.1fx |\n\n", p / g, pk / gk
  printf "Results: %s.\n", agree
}'
