#!/usr/bin/python3
"""tools/ref_compare.py -- compares two `index show` CSV files (gpuidx and
tools/ref_index.py) field by field and summarizes the differences.

Usage: /usr/bin/python3 tools/ref_compare.py GPUIDX.csv REF.csv [--max N]

Prints the row count, then per (grade, field) the number of differing
rows with up to N examples, each difference labelled with the reported
disagreement it matches (tests/refindex_helpers.h, known_disagreement):
  K1  panel_change 0 (gpuidx) vs 1 on a day without eligible observations
      (§10.6: "a day without observations, after a fixed day with some, is
      one"; gpuidx prints 0 while the fixed day's trading providers are
      still present by trade carry)
Exit status 0 when the files are equal, 1 otherwise.
"""
import argparse
import csv
import sys


def known(field, a, b):
    if field == "panel_change" and a["n_obs"] == "0" and a[field] == "0" and b[field] == "1":
        return "K1"
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpuidx")
    ap.add_argument("ref")
    ap.add_argument("--max", type=int, default=3)
    a = ap.parse_args()
    with open(a.gpuidx, newline="") as f:
        ra = list(csv.DictReader(f))
    with open(a.ref, newline="") as f:
        rb = list(csv.DictReader(f))
    if len(ra) != len(rb):
        print(f"rows: gpuidx {len(ra)}, reference {len(rb)}")
        return 1
    diffs, rows_bad, kinds = {}, 0, {}
    for x, y in zip(ra, rb):
        if (x["date"], x["grade"]) != (y["date"], y["grade"]):
            print(f"row order differs: {x['date']} {x['grade']} vs {y['date']} {y['grade']}")
            return 1
        bad = False
        for k in x:
            if x[k] != y[k]:
                bad = True
                kd = known(k, x, y)
                kinds[kd] = kinds.get(kd, 0) + 1
                diffs.setdefault((x["grade"], k), []).append((x["date"], x[k], y[k], kd))
        rows_bad += bad
    methods = {}
    for x in ra:
        methods[x["methodology"]] = methods.get(x["methodology"], 0) + 1
    print(f"rows: {len(ra)} ({', '.join(f'{v} {k}' for k, v in sorted(methods.items()))}),"
          f" {rows_bad} with a difference")
    for (g, k), lst in sorted(diffs.items()):
        print(f"  {g} {k}: {len(lst)} rows")
        for d, u, v, kd in lst[:a.max]:
            print(f"    {d} {kd or '??'} gpuidx {u!r}\n{'':19}ref    {v!r}")
    if kinds:
        print("fields by kind: " + ", ".join(f"{k or 'unexplained'} {v}"
                                            for k, v in sorted(kinds.items())))
    return 1 if rows_bad else 0


if __name__ == "__main__":
    sys.exit(main())
