#!/usr/bin/python3
"""bench/compare_index.py -- a peer pipeline's rows against gpuidx's.

    compare_index.py GPUIDX.csv PEER.csv DIFF.csv [--all-columns]

GPUIDX.csv is `gpuidx index show`; PEER.csv has date,grade,value,level and
any other columns of `index show` it computes (pandas: a few; DuckDB: all of
them up to top_provider_share).  Grade-days are matched by (date, grade);
level and value are compared as text (both are written with their published
decimals), and so is every other column the peer writes.  Prints one line
for BENCHMARKS.md (with --all-columns, also how many grade-days agree on
every column); DIFF.csv lists every differing (grade-day, column) with both
values, for finding the cause.
"""
import csv
import sys


def rows(path):
    with open(path, newline="") as f:
        return {(r["date"], r["grade"]): r for r in csv.DictReader(f)}


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["--all-columns"]):
        sys.exit("usage: compare_index.py GPUIDX.csv PEER.csv DIFF.csv [--all-columns]")
    g, p = rows(sys.argv[1]), rows(sys.argv[2])
    keys = sorted(set(g) & set(p))
    cols = [c for c in (next(iter(p.values())).keys() if p else []) if c not in ("date", "grade")]
    lvl = [k for k in keys if g[k]["level"] == p[k]["level"]]
    val = [k for k in lvl if g[k]["value"] == p[k]["value"]]
    every = [k for k in val if all(g[k].get(c, "") == p[k][c] for c in cols)]
    with open(sys.argv[3], "w") as f:
        f.write("date,grade,column,gpuidx,peer\n")
        for k in keys:
            for c in cols:
                if g[k].get(c, "") != p[k][c]:
                    f.write("%s,%s,%s,%s,%s\n" % (k[0], k[1], c, g[k].get(c, ""), p[k][c]))
    n = max(len(keys), 1)
    out = ("%d grade-days compared (%d only in gpuidx, %d only in the peer): level agrees on %d "
           "(%.1f %%), level and value on %d (%.1f %%)"
           % (len(keys), len(set(g) - set(p)), len(set(p) - set(g)), len(lvl), 100 * len(lvl) / n,
              len(val), 100 * len(val) / n))
    if sys.argv[4:]:
        out += ", all %d columns on %d (%.1f %%)" % (len(cols), len(every), 100 * len(every) / n)
    print(out)


if __name__ == "__main__":
    main()
