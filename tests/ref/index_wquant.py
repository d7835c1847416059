#!/usr/bin/python3
# tests/ref/index_wquant.py -- independent reference for tests/test_index_quantile.c:
# the capped volume-weighted quantile of SPEC §6.3 and METHODOLOGY.md §10 (band) in exact
# fractions.  Reads one case a line from the file named as its argument:
#     cap_e6 qn qd n  group price qty  group price qty ...
# and prints, a line per case, the quantile in quarter-micro and 1 when the cumulative
# weight met qn/qd exactly at a price before the last (the mean with the next price), else 0.
import sys
from fractions import Fraction as F

def waterfill(vols, cap):
    n = len(vols)
    s = max(F(cap), F(1, n))
    capped = set()
    while True:
        tot = sum(v for i, v in enumerate(vols) if i not in capped)
        rem = 1 - len(capped) * s
        sh = [s if i in capped else rem * v / tot for i, v in enumerate(vols)]
        over = [i for i in range(n) if i not in capped and sh[i] > s]
        if not over:
            return sh
        capped.update(over)

def quantile(trades, cap, q):
    provs = sorted(set(g for g, _, _ in trades))
    vol = {g: sum(v for h, _, v in trades if h == g) for g in provs}
    sh = dict(zip(provs, waterfill([vol[g] for g in provs], cap)))
    w = {}
    for g, p, v in trades:
        w[p] = w.get(p, 0) + sh[g] * F(v) / vol[g]
    prices = sorted(w)
    cum = F(0)
    for k, p in enumerate(prices):
        cum += w[p]
        if cum > q or (cum == q and k + 1 == len(prices)):
            return 4 * p, 0
        if cum == q:
            return 2 * (p + prices[k + 1]), 1
    raise SystemExit("quantile never reached")

for line in open(sys.argv[1]):
    x = [int(t) for t in line.split()]
    cap, qn, qd, n = x[:4]
    t = [(x[4 + 3 * i], x[5 + 3 * i], x[6 + 3 * i]) for i in range(n)]
    v, tie = quantile(t, F(cap, 1000000), F(qn, qd))
    print(v, tie)
