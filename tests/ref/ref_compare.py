#!/usr/bin/python3
"""tests/ref/ref_compare.py -- compares two `index show` CSV files (gpuidx and
tests/ref/ref_index.py) field by field and summarizes the differences.

Usage: /usr/bin/python3 tests/ref/ref_compare.py GPUIDX.csv REF.csv [--max N]

Prints the row count, then per (grade, field) the number of differing
rows with up to N examples.  Columns only one file has (the reference run
with --no-manip stops at `note`) are named and left out.
Exit status 0 when the files are equal, 1 otherwise.
"""
import argparse
import csv
import sys


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
    if ra and rb:
        only = [k for k in ra[0] if k not in rb[0]] + [k for k in rb[0] if k not in ra[0]]
        if only:
            print(f"columns left out (in one file only): {', '.join(only)}")
    if len(ra) != len(rb):
        print(f"rows: gpuidx {len(ra)}, reference {len(rb)}")
        return 1
    diffs, rows_bad = {}, 0
    for x, y in zip(ra, rb):
        if (x["date"], x["grade"]) != (y["date"], y["grade"]):
            print(f"row order differs: {x['date']} {x['grade']} vs {y['date']} {y['grade']}")
            return 1
        bad = False
        for k in x:
            if k in y and x[k] != y[k]:
                bad = True
                diffs.setdefault((x["grade"], k), []).append((x["date"], x[k], y[k]))
        rows_bad += bad
    methods = {}
    for x in ra:
        methods[x["methodology"]] = methods.get(x["methodology"], 0) + 1
    print(f"rows: {len(ra)} ({', '.join(f'{v} {k}' for k, v in sorted(methods.items()))}),"
          f" {rows_bad} with a difference")
    for (g, k), lst in sorted(diffs.items()):
        print(f"  {g} {k}: {len(lst)} rows")
        for d, u, v in lst[:a.max]:
            print(f"    {d} gpuidx {u!r}\n{'':15}ref    {v!r}")
    return 1 if rows_bad else 0


if __name__ == "__main__":
    sys.exit(main())
