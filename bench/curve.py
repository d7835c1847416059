#!/usr/bin/env python3
"""bench/curve.py -- the Markdown tables of bench/curve's back-test
(`gpuidx curve backtest --csv`: grade,tenor,against,n,bias_pct,rmse_pct,
within_3pct_pct).

    python3 bench/curve.py WORK/backtest.csv

Table 1: the share of days each tenor's forward lies within 3 % of the
simulator's true curve (at the day's fix, and at the grade's true price),
for tenors 1, 3, 6, 12, 24 (36 for information).  Table 2: bias and RMSE
against the true curve at the fix and against the realised monthly FSP.
"""
import csv
import sys

TENORS = [1, 3, 6, 12, 24, 36]


def main(path):
    rows = list(csv.DictReader(open(path)))
    grades = []
    for r in rows:
        if r["grade"] not in grades:
            grades.append(r["grade"])
    at = {(r["grade"], int(r["tenor"]), r["against"]): r for r in rows}

    def cell(g, k, a, key, suffix=""):
        r = at.get((g, k, a))
        return (r[key] + suffix) if r and r[key] != "" else "-"

    print("Share of days with the forward within 3 % of the true curve "
          "(at the day's fix / at the true price; n days):\n")
    print("| grade | " + " | ".join("%d months" % k for k in TENORS) + " |")
    print("|---|" + "---:|" * len(TENORS))
    for g in grades:
        cells = []
        for k in TENORS:
            a, b = at.get((g, k, "true_at_fix")), at.get((g, k, "true_at_price"))
            if not a:
                cells.append("withheld")
                continue
            cells.append("%s / %s (%s)" % (a["within_3pct_pct"], b["within_3pct_pct"] if b else "-",
                                           a["n"]))
        print("| %s | %s |" % (g, " | ".join(cells)))
    print("\nBias and RMSE (%) of the forward against the true curve at the fix, and against "
          "the realised monthly FSP (the months k ahead that ended inside the run):\n")
    print("| grade | tenor | true: bias | true: RMSE | realised: n | realised: bias | "
          "realised: RMSE |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for g in grades:
        for k in TENORS:
            if not at.get((g, k, "true_at_fix")) and not at.get((g, k, "realised")):
                continue
            print("| %s | %d | %s | %s | %s | %s | %s |" % (
                g, k, cell(g, k, "true_at_fix", "bias_pct"), cell(g, k, "true_at_fix", "rmse_pct"),
                cell(g, k, "realised", "n"), cell(g, k, "realised", "bias_pct"),
                cell(g, k, "realised", "rmse_pct")))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
