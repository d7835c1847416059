#!/bin/sh
# tools/demo.sh -- `make demo`: the whole pipeline on the embedded demo market.
#
#   sh tools/demo.sh [path/to/gpuidx]
#
# Generates a year (2025) of the demo market (fixed seed) into demo-out/market,
# ingests it into demo-out/demo.db, builds the index over the range,
# publishes each month end and every day from 2025-10-25 (the December
# contract's days and the window of the November anchor), verifies every
# published day and the December contract's settlement prices from the
# published files alone (gpuidx verify), writes the static site,
# settles the example contracts with the example positions, runs hedge
# analyses and hedge replays on the example rent histories, prints the
# producers' cost curve of the example deployments (also on the site), and
# prints where each result is.  Any failing step stops the script with its exit
# status (set -e); a command that is still a placeholder in this build
# stops it with a message saying so -- nothing is skipped silently.
set -eu

BIN=${1:-build/gpuidx}
OUT=demo-out
MARKET=$OUT/market
DB=$OUT/demo.db
SEED=20250101
START=2025-01-01
DAYS=365
END=2025-12-31
GRADE=H100-SXM.OD.GOLD+

case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
[ -x "$BIN" ] || { echo "make demo: $BIN is not built" >&2; exit 1; }

step() { printf '\n== %s\n' "$*"; }

# A placeholder command prints "... is not built yet ..." even for --help.
require() {
    if ! "$BIN" "$@" --help >/dev/null 2>&1; then
        echo "make demo: STOPPED: 'gpuidx $*' is not built yet in this version" >&2
        echo "           (placeholder in this branch); the steps before this one ran," >&2
        echo "           the rest did not.  Re-run 'make demo' once it is merged." >&2
        exit 1
    fi
}

rm -rf "$OUT"
mkdir -p "$OUT"

step "1. demo market: $DAYS days from $START, seed $SEED"
require simulate
"$BIN" simulate --days $DAYS --seed $SEED --start $START --out "$MARKET" --grade "$GRADE"

step "2. ingest offers and trades"
require ingest
"$BIN" --db "$DB" ingest offers --rejects "$OUT/rejects-offers.csv" "$MARKET/offers.csv"
"$BIN" --db "$DB" ingest trades --rejects "$OUT/rejects-trades.csv" "$MARKET/trades.csv"

step "3. build the index $START .. $END (grades: data/grades.json)"
require index build
"$BIN" --db "$DB" index build --from $START --to $END
"$BIN" --db "$DB" index show --grade "$GRADE" --from 2025-12-25 --to $END

step "4. publish each month end and every day from 2025-10-25"
require index publish
for d in 2025-01-31 2025-02-28 2025-03-31 2025-04-30 2025-05-31 2025-06-30 \
         2025-07-31 2025-08-31 2025-09-30; do
    "$BIN" --db "$DB" index publish --date $d --out "$OUT/publish"
done
"$BIN" --db "$DB" index publish --from 2025-10-25 --to $END --out "$OUT/publish" 2>"$OUT/publish.log"
tail -1 "$OUT/publish.log"

step "5. static site"
require site
"$BIN" --db "$DB" site --out "$OUT/site" --deployments "$MARKET/deployments.csv"

step "6. settle the example contracts with the example positions"
require settle
"$BIN" --db "$DB" settle --contracts "$MARKET/contracts.json" \
    --positions "$MARKET/positions.csv" >"$OUT/settlement.csv"
grep -E ',(final|insufficient)$' "$OUT/settlement.csv" || true

step "6b. verify the published days and the December contract from the files alone"
require verify
"$BIN" verify "$OUT/publish" >"$OUT/verify.txt"
tail -1 "$OUT/verify.txt"
"$BIN" verify --settlement --contracts "$MARKET/contracts.json" --symbol GPUH-2512 \
    --against "$OUT/settlement.csv" "$OUT/publish"

step "7. hedge analysis of the example rent histories against $GRADE"
require hedge analyze
"$BIN" --db "$DB" hedge analyze --rent "$MARKET/rent_payer.csv" --grade "$GRADE" --freq week \
    >"$OUT/hedge-payer.txt"
"$BIN" --db "$DB" hedge analyze --rent "$MARKET/rent_payer.csv" --grade "$GRADE" --freq week \
    --json >"$OUT/hedge-payer.json"
"$BIN" --db "$DB" hedge analyze --rent "$MARKET/rent_earner.csv" --grade "$GRADE" --freq week \
    >"$OUT/hedge-earner.txt"
cat "$OUT/hedge-payer.txt"

step "8. hedge replay with monthly futures"
require hedge simulate
"$BIN" --db "$DB" hedge simulate --rent "$MARKET/rent_payer.csv" --grade "$GRADE" \
    --side payer >"$OUT/hedge-sim-payer.txt"
"$BIN" --db "$DB" hedge simulate --rent "$MARKET/rent_earner.csv" --grade "$GRADE" \
    --side earner >"$OUT/hedge-sim-earner.txt"
cat "$OUT/hedge-sim-payer.txt"

step "9. cost per acceptable token: the producers' cost curve on $END"
require cost curve
DEPS=$MARKET/deployments.csv
"$BIN" --db "$DB" cost curve --deployments "$DEPS" --operator "Northwind AI" \
    --svg "$OUT/cost-curve.svg" >"$OUT/cost-curve.txt"
"$BIN" --db "$DB" cost curve --deployments "$DEPS" --csv >"$OUT/cost-curve.csv"
"$BIN" --db "$DB" cost curve --deployments "$DEPS" --json >"$OUT/cost-curve.json"
"$BIN" --db "$DB" cost moves --deployments "$DEPS" --from $START --to $END --every 7 \
    >"$OUT/cost-moves.txt"
"$BIN" --db "$DB" cost moves --deployments "$DEPS" --from $START --to $END --csv \
    >"$OUT/cost-moves.csv"
cat "$OUT/cost-curve.txt"

cat <<EOM

== results
  market (CSV, contracts, positions, rent)   $MARKET/
  database                                   $DB
  rejected rows                              $OUT/rejects-offers.csv, $OUT/rejects-trades.csv
  published days                             $OUT/publish/<date>/index.csv, index.json, observations.csv
  their verification (gpuidx verify)         $OUT/verify.txt
  static site                                $OUT/site/index.html (+ one CSV per grade, cost curve)
  settlement prices and margin ledger        $OUT/settlement.csv
  hedge analysis (payer, earner)             $OUT/hedge-payer.txt, $OUT/hedge-payer.json, $OUT/hedge-earner.txt
  hedge replay (payer, earner)               $OUT/hedge-sim-payer.txt, $OUT/hedge-sim-earner.txt
  cost curve (text, CSV, JSON, SVG)          $OUT/cost-curve.txt, .csv, .json, .svg
  positions on the curve over the year       $OUT/cost-moves.txt, $OUT/cost-moves.csv
EOM
