#!/bin/sh
# tools/demo.sh -- `make demo`: the whole pipeline on the embedded demo market.
#
#   sh tools/demo.sh [path/to/gpuidx]
#
# Generates a year (2025) of the demo market (fixed seed) into demo-out/market,
# ingests it into demo-out/demo.db (every provider of the market is in
# data/providers.csv), builds the index over the range,
# publishes each month end and every day from 2025-10-25 (the December
# contract's days and the window of the November anchor), signed with a
# key made for the run (demo-out/keys), measures every grade against the
# market's true price (bench/accuracy), writes the year's review report and
# the static site (with a screenshot when chromium is installed; run from
# the source tree, `make demo`, it is also README.md's docs/site.png),
# verifies every published day -- its signature and the raw files it
# commits to -- and the December contract's settlement prices from the
# published files alone (gpuidx verify),
# settles the example contracts with the example positions, shows the
# term curves of the last day and their back-test against the market's
# true curve (on the site too), runs hedge
# analyses, hedge replays (roll and strip) and grade rankings (with grades
# built around the payer's rent) on the example rent histories, draws the
# payer's replay and ranking as SVG, prints the producers' cost curve of
# the example deployments (also on the site), and prints where each result
# is.  Any failing step stops the script with its exit
# status (set -e); a command that is still a placeholder in this build
# stops it with a message saying so -- nothing is skipped silently.
#
# DEMO_QUICK=1 (for tests that need only the published days and the
# settlement, tests/test_e2e_verify.c) leaves out the two slow steps that
# other tests cover on smaller markets -- the accuracy benchmark (step 5;
# tests/test_e2e_accuracy.c; the site then has no accuracy table) and the
# screenshot (tests/test_e2e_browser.c) -- and says so.  `make demo` never
# sets it.
set -eu

BIN=${1:-build/gpuidx}
OUT=demo-out
MARKET=$OUT/market
DB=$OUT/demo.db
SEED=20250101
START=2025-01-01
DAYS=365
END=2025-12-31
GRADE=H100-SXM.OD

case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd) # the source tree (the demo may run elsewhere)
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
"$BIN" simulate --days $DAYS --seed $SEED --start $START --out "$MARKET" --grade "$GRADE" \
    --truth "$OUT/truth-trades.csv"

step "2. ingest offers and trades (every provider of the market is in data/providers.csv)"
require ingest
"$BIN" --db "$DB" ingest offers --rejects "$OUT/rejects-offers.csv" "$MARKET/offers.csv"
# reservations beyond the catalogue, forward starts among them (the term curve's inputs)
"$BIN" --db "$DB" ingest offers --rejects "$OUT/rejects-term-offers.csv" "$MARKET/term_offers.csv"
"$BIN" --db "$DB" ingest trades --rejects "$OUT/rejects-trades.csv" "$MARKET/trades.csv"

step "3. build the index $START .. $END (the published grades file data/grades.json)"
require index build
"$BIN" --db "$DB" index build --from $START --to $END
"$BIN" --db "$DB" index show --grade "$GRADE" --from 2025-12-25 --to $END

step "3b. the grade lab: candidate grades evaluated, never stored or published"
require grades evaluate
cat >"$OUT/candidates.json" <<'EOJ'
{"grades": [
  {"id": "H100-SXM.OD.US", "method": "v2", "gpu": ["H100-SXM-80GB"], "term": "on-demand",
   "covers": ["instance"], "regions": ["US"]},
  {"id": "H100-SXM.OD.GOLD+", "method": "v2", "gpu": ["H100-SXM-80GB"], "term": "on-demand",
   "covers": ["instance"], "min_tier": "gold"}
]}
EOJ
"$BIN" --db "$DB" grades evaluate --grades "$OUT/candidates.json" --from $START --to $END
# built for a hedge comparison (step 7): stored as candidates, never published
# (the neocloud split, H100-SXM.OD.NEO, is a published grade since issue 26)
"$BIN" --db "$DB" index build --grades "$OUT/candidates.json" --from $START --to $END
"$BIN" --db "$DB" grades list

step "4. publish each month end and every day from 2025-10-25, signed"
require index publish
# the publisher's key pair: the private key outside the publication, the
# public key (.pub) for the readers (METHODOLOGY.md §7.3)
mkdir -p "$OUT/keys"
"$BIN" key new --out "$OUT/keys/publisher.pem"
SIGN="--sign $OUT/keys/publisher.pem"
for d in 2025-01-31 2025-02-28 2025-03-31 2025-04-30 2025-05-31 2025-06-30 \
         2025-07-31 2025-08-31 2025-09-30; do
    "$BIN" --db "$DB" index publish --date $d --out "$OUT/publish" $SIGN
done
"$BIN" --db "$DB" index publish --from 2025-10-25 --to $END --out "$OUT/publish" $SIGN \
    2>"$OUT/publish.log"
tail -1 "$OUT/publish.log"

echo "grades published on $END (the published grades file only):"
cut -d, -f2 "$OUT/publish/$END/index.csv" | tail -n +2 | tr '\n' ' '
echo

QUICK=${DEMO_QUICK:-0}
step "5. accuracy against the market's true price (bench/accuracy; BENCHMARKS.md)"
if [ "$QUICK" = 1 ]; then
    echo "(left out: DEMO_QUICK=1)"
    set --
else
    DAYS=$DAYS SEED=$SEED WORK="$OUT/accuracy" sh "$SRC/bench/accuracy" "$BIN" >"$OUT/accuracy.md"
    cat "$OUT/accuracy.md"
    set -- --accuracy "$OUT/accuracy/accuracy.csv"
fi

step "5b. the term curve: each grade's 1-36 month curve of $END and its back-test"
require curve
"$BIN" --db "$DB" curve --date $END --grade "$GRADE" --grade H200.OD | grep -E ': front|^ +(1|3|6|12|24|36) '
TRUTHV=
[ "$QUICK" = 1 ] || TRUTHV="--truth-values $OUT/accuracy/truth.csv"
# shellcheck disable=SC2086
"$BIN" --db "$DB" curve backtest --from $START --to $END --truth "$OUT/truth-trades-curve.csv" \
    $TRUTHV --csv >"$OUT/curve-backtest.csv"
# shellcheck disable=SC2086
"$BIN" --db "$DB" curve backtest --from $START --to $END --truth "$OUT/truth-trades-curve.csv" \
    $TRUTHV --grade "$GRADE" --grade H200.OD >"$OUT/curve-backtest.txt"
head -8 "$OUT/curve-backtest.txt"

step "6. the year's review report, the static site, benchmark statement and a screenshot"
require review
"$BIN" --db "$DB" review --from $START --to $END --out "$OUT/site"
"$BIN" --db "$DB" grades stale --from $START --to $END >"$OUT/stale.txt"
require site
"$BIN" --db "$DB" site --out "$OUT/site" --deployments "$MARKET/deployments.csv" \
    --curve-backtest "$OUT/curve-backtest.csv" "$@"
if [ "$QUICK" = 1 ]; then
    echo "(no screenshot: DEMO_QUICK=1)"
elif command -v chromium >/dev/null 2>&1; then
    sh "$SRC/tools/screenshot.sh" "$OUT/site" "$OUT/site.png" 1100,1250
    # run from the source tree (make demo): README.md's screenshot too
    if [ "$(pwd)" = "$SRC" ] && [ -d "$SRC/docs" ]; then
        cp "$OUT/site.png" "$SRC/docs/site.png"
        echo "screenshot: docs/site.png (README.md's) regenerated"
    fi
else
    echo "(no screenshot: chromium is not installed; tools/deps.sh installs it)"
fi

step "7. settle the example contracts with the example positions"
require settle
"$BIN" --db "$DB" settle --contracts "$MARKET/contracts.json" \
    --positions "$MARKET/positions.csv" --ledger "$OUT/ledger.csv" >"$OUT/settlement.csv"
grep -E ',(final|insufficient)$' "$OUT/settlement.csv" || true
echo "the exchange-listed H100 design (data/contracts-h100-exchange.json: 36 months, 730"
echo "GPU-hours, \$0.01 tick, business-day average), settled through $END:"
"$BIN" --db "$DB" settle --contracts "$SRC/data/contracts-h100-exchange.json" --through $END \
    >"$OUT/settlement-exchange.csv"
grep -E ',(final|insufficient)$' "$OUT/settlement-exchange.csv" || true

step "7b. verify the published days and the December contract from the files alone"
require verify
"$BIN" verify --key "$OUT/keys/publisher.pem.pub" "$OUT/publish" >"$OUT/verify.txt"
tail -2 "$OUT/verify.txt"
# and each day's observations against the raw files it commits to
"$BIN" verify --inputs "$MARKET" "$OUT/publish" >"$OUT/verify-inputs.txt"
tail -2 "$OUT/verify-inputs.txt"
"$BIN" verify --settlement --contracts "$MARKET/contracts.json" --symbol GPUH-2512 \
    --against "$OUT/settlement.csv" "$OUT/publish"
"$BIN" verify --settlement --contracts "$SRC/data/contracts-h100-exchange.json" \
    --symbol GPUHX-2512 --against "$OUT/settlement-exchange.csv" "$OUT/publish"

step "8. hedge analysis of the example rent histories against $GRADE"
require hedge analyze
"$BIN" --db "$DB" hedge analyze --rent "$MARKET/rent_payer.csv" --grade "$GRADE" --freq week \
    >"$OUT/hedge-payer.txt"
"$BIN" --db "$DB" hedge analyze --rent "$MARKET/rent_payer.csv" --grade "$GRADE" --freq week \
    --json >"$OUT/hedge-payer.json"
"$BIN" --db "$DB" hedge analyze --rent "$MARKET/rent_earner.csv" --grade "$GRADE" --freq week \
    >"$OUT/hedge-earner.txt"
cat "$OUT/hedge-payer.txt"
"$BIN" --db "$DB" hedge compare --rent "$MARKET/rent_payer.csv" \
    --grade "$GRADE" --grade H100-SXM.OD.US --grade H100-SXM.OD.NEO --grade H100-SXM.OD.GOLD+ \
    >"$OUT/hedge-compare.txt"
cat "$OUT/hedge-compare.txt"

step "9. hedge replay with monthly futures: month-ahead roll and a 12-month strip"
require hedge simulate
echo "(a year holds 11 monthly changes: the automatic ratio has no fit to hedge on, and says so)"
"$BIN" --db "$DB" hedge simulate --rent "$MARKET/rent_payer.csv" --grade "$GRADE" \
    --side payer >"$OUT/hedge-sim-payer-auto.txt"
grep '^warning: auto ratio hedged no month' "$OUT/hedge-sim-payer-auto.txt"
"$BIN" --db "$DB" hedge simulate --rent "$MARKET/rent_payer.csv" --grade "$GRADE" \
    --side payer --ratio 1 --strategy all --svg "$OUT/hedge-sim-payer.svg" \
    >"$OUT/hedge-sim-payer.txt"
"$BIN" --db "$DB" hedge simulate --rent "$MARKET/rent_earner.csv" --grade "$GRADE" \
    --side earner --ratio 1 --strategy all >"$OUT/hedge-sim-earner.txt"
cat "$OUT/hedge-sim-payer.txt"
echo "sized on the exchange-listed H100 design (data/contracts-h100-exchange.json):"
"$BIN" --db "$DB" hedge simulate --rent "$MARKET/rent_payer.csv" --grade "$GRADE" \
    --side payer --ratio 1 --contracts "$SRC/data/contracts-h100-exchange.json" \
    >"$OUT/hedge-sim-payer-exchange.txt"
grep -E '^(contracts|residual|rounding|the hedge)' "$OUT/hedge-sim-payer-exchange.txt"

step "10. cost per acceptable token: the producers' cost curve on $END"
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
step "11. which grade hedges the payer's rent (weekly changes, every shipped grade and grades built around the rent)"
"$BIN" --db "$DB" hedge compare --rent "$MARKET/rent_payer.csv" --grades "$SRC/data/grades.json" \
    --freq week --suggest --gpu H100-SXM-80GB --term on-demand --scope vm \
    --svg "$OUT/hedge-compare-payer.svg" >"$OUT/hedge-compare-payer.txt"
"$BIN" --db "$DB" hedge compare --rent "$MARKET/rent_earner.csv" --grades "$SRC/data/grades.json" \
    --gpu H100 --freq week >"$OUT/hedge-compare-earner.txt"
cat "$OUT/hedge-compare-payer.txt"

cat <<EOM

== results
  market (CSV, contracts, positions, rent)   $MARKET/
  database                                   $DB
  rejected rows                              $OUT/rejects-offers.csv, $OUT/rejects-trades.csv
  published days (the published grades only) $OUT/publish/<date>/index.csv, index.json, observations.csv,
                                             curve.csv, curve.json (the term curve, file format 4)
                                             (+ signature.json, datapackage.json)
  term curve back-test                       $OUT/curve-backtest.txt, $OUT/curve-backtest.csv
  the publisher's key pair                   $OUT/keys/publisher.pem, publisher.pem.pub
  their verification (gpuidx verify)         $OUT/verify.txt, $OUT/verify-inputs.txt
  the year's review report, stale inputs     $OUT/site/review-$START-$END.md, .json; $OUT/stale.txt
  accuracy against the true price            $OUT/accuracy.md, $OUT/accuracy/accuracy.csv
  static site                                $OUT/site/index.html, statement.html (+ one CSV per grade, cost curve)
  screenshot of the site                     $OUT/site.png
  settlement prices, margin ledger           $OUT/settlement.csv, $OUT/ledger.csv, $OUT/settlement-exchange.csv
  hedge analysis (payer, earner)             $OUT/hedge-payer.txt, $OUT/hedge-payer.json, $OUT/hedge-earner.txt
  hedge comparison with candidate grades     $OUT/hedge-compare.txt
  hedge replay (payer, earner)               $OUT/hedge-sim-payer.txt, $OUT/hedge-sim-earner.txt
                                             $OUT/hedge-sim-payer-auto.txt (automatic ratio),
                                             $OUT/hedge-sim-payer-exchange.txt (exchange contract terms)
  cost curve (text, CSV, JSON, SVG)          $OUT/cost-curve.txt, .csv, .json, .svg
  positions on the curve over the year       $OUT/cost-moves.txt, $OUT/cost-moves.csv
  hedge grade ranking (payer, earner)        $OUT/hedge-compare-payer.txt, $OUT/hedge-compare-earner.txt
  hedge pictures (payer)                     $OUT/hedge-sim-payer.svg (rent, index, hedged and locked prices, budget errors)
                                             $OUT/hedge-compare-payer.svg (effectiveness of each grade with its 95% interval)
EOM
