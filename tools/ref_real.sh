#!/bin/sh
# tools/ref_real.sh -- gpuidx vs the reference implementation (tests/ref/ref_index.py,
# methodology v1 and v2 written from METHODOLOGY.md alone) on the real SkyPilot
# catalogue: a slice of ../shared/data/real is ingested, a few v2 grades and
# their v1 twins are built over it, and `index show` is compared with the
# reference field by field (tests/ref/ref_compare.py).  Not part of `make test`
# (about 50 s for the default window, more from 2023-01-01); exit 0 when
# every field agrees, 1 when any differs, 77 when the data is absent.  The
# reference's rule counts (ref_index.py --stats: how often each rule of
# §10.3-§10.4 decided something) are printed before the comparison.
#
#   sh tools/ref_real.sh [path/to/gpuidx]
#   env: FROM (2024-01-15), TO (2024-04-23), WORK (scratch directory, default
#        a new one under /tmp; the slice and the database stay there),
#        BUILD=pieces builds the range a month at a time, latest first
#        (partial builds), instead of at once
#
# The window holds three rebalances (Feb, Mar, Apr 1) and the days on which
# Fluidstack, GCP and Paperspace first list H100s.
set -eu
BIN=${1:-build/gpuidx}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
REAL=$SRC/../shared/data/real/skypilot_offers_canonical.csv.gz
FROM=${FROM:-2024-01-15}
TO=${TO:-2024-04-23}
WORK=${WORK:-$(mktemp -d /tmp/gpuidx-ref-real-XXXXXX)}
PY=/usr/bin/python3
if [ ! -r "$REAL" ]; then
    echo "skip: $REAL is absent" >&2
    exit 77
fi
mkdir -p "$WORK"
cd "$WORK"
rm -f r.db r.db-wal r.db-shm
cat >g.json <<'EOF'
{"grades": [
 {"id": "R2.H100.OD", "gpu": ["H100-SXM-80GB"], "term": "on-demand", "method": "v2"},
 {"id": "R2.A100.OD", "gpu": ["A100-SXM-80GB", "A100-SXM-40GB"], "term": "on-demand",
  "method": "v2"},
 {"id": "R2.A100.SPOT", "gpu": ["A100-SXM-80GB", "A100-SXM-40GB"], "term": "spot",
  "method": "v2", "anchor_days": 3},
 {"id": "R2.T4.SPOT", "gpu": ["T4"], "term": "spot", "method": "v2", "anchor_days": 2,
  "max_carry_days": 2},
 {"id": "R1.H100.OD", "gpu": ["H100-SXM-80GB"], "term": "on-demand"},
 {"id": "R1.T4.SPOT", "gpu": ["T4"], "term": "spot", "max_carry_days": 2}
]}
EOF
t0=$(date +%s)
zcat "$REAL" | awk -F, -v a="$FROM" -v b="$TO" 'NR == 1 || ($3 >= a && $3 <= b)' >slice.csv
"$BIN" --db r.db ingest slice.csv >&2
t1=$(date +%s)
if [ "${BUILD:-}" = pieces ]; then
    # month pieces, latest first
    for m in $($PY -c "
import datetime as d
a, b = d.date.fromisoformat('$FROM'), d.date.fromisoformat('$TO')
out, x = [], a
while x <= b:
    nxt = (x.replace(day=1) + d.timedelta(days=32)).replace(day=1)
    out.append(f'{x}:{min(b, nxt - d.timedelta(days=1))}')
    x = nxt
print(' '.join(reversed(out)))"); do
        "$BIN" --db r.db index build --grades g.json --from "${m%%:*}" --to "${m##*:}" >&2
    done
else
    "$BIN" --db r.db index build --grades g.json --from "$FROM" --to "$TO" >&2
fi
t2=$(date +%s)
"$BIN" --db r.db index show --from "$FROM" --to "$TO" >gpuidx.csv
$PY "$SRC/tests/ref/ref_index.py" --db r.db --grades g.json --from "$FROM" --to "$TO" \
    --stats stats.txt >ref.csv
t3=$(date +%s)
echo "ref_real: $(($(wc -l <slice.csv) - 1)) observations $FROM..$TO in $WORK;" \
     "ingest $((t1 - t0)) s, build $((t2 - t1)) s, reference $((t3 - t2)) s" >&2
echo "ref_real: v2 rules exercised: $(tr '\n' ' ' <stats.txt)" >&2
$PY "$SRC/tests/ref/ref_compare.py" gpuidx.csv ref.csv
