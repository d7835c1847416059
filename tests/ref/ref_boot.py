#!/usr/bin/python3
"""tests/ref/ref_boot.py -- the bootstrap interval of METHODOLOGY.md §12.2,
written again from that text (not from index/bootstrap.c), with exact
fractions.

Usage: ref_boot.py DIR/D
Reads DIR/D/index.json (file format 4) and DIR/D/observations.csv and
prints, for each row whose interval it computes, one line
"grade ci_low ci_high" (4 decimals).  Computed: methodology v1 rows on
trades and offers days, v3 rows likewise (the panel's used lines, the
imputed members' carried lines among them: a v3 fix is v1's statistic
over them, METHODOLOGY.md §13.3), and v2 rows whose value is an offers relative
(chain before the day times S(now) / S(ref) of the matched offers'
relatives to base).  Other rows print "grade skip".

The method (§12.2): the provider groups of the fix are resampled with
replacement, 999 times, with splitmix64 seeded by the first 8 bytes of
SHA-256("gpuidx bootstrap 1" NUL grade NUL date), big-endian; a draw's
group index is the high 64 bits of (output x number of groups).  Each
resample's statistic is the method's (median of the drawn groups'
medians; or the capped volume-weighted median of the drawn groups'
trades, each draw a provider of its own), scaled as the value is and
rounded once, half-up, to 0.0001; the interval is the 25th and 975th
smallest of the 999 values.
"""
import csv
import hashlib
import json
import os
import sys
from fractions import Fraction as Fr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ref_index import capped_shares, median, round_half_up, weighted_median  # noqa: E402

M64 = (1 << 64) - 1
E4 = Fr(1, 10000)


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def seed_of(grade, date):
    h = hashlib.sha256(b"gpuidx bootstrap 1\0" + grade.encode() + b"\0" + date.encode())
    return int.from_bytes(h.digest()[:8], "big")


def dec(s):
    return Fr(s) if s not in (None, "") else None


def ratio12(a, b):
    return round_half_up(Fr(a) / Fr(b), Fr(1, 10 ** 12))


def interval(groups, stat, scale, seed, ref_groups=None, step=E4, cap=Fr(3, 10)):
    """groups: list of item lists (offers: values; trades: (price, qty));
    step: the grade's rounding, cap: its cap_floor."""
    k = len(groups)
    if k < 2:
        return None
    meds = [median(g) for g in groups] if stat == "medians" else None
    rmeds = [median(g) for g in ref_groups] if ref_groups and stat == "medians" else None
    vals = []
    s = seed
    for _ in range(999):
        draw = []
        for _ in range(k):
            s, x = splitmix(s)
            draw.append((x * k) >> 64)
        if stat == "medians":
            v = median([meds[i] for i in draw])
            if rmeds:
                v = v / median([rmeds[i] for i in draw])
        else:
            vol = {j: sum(q for _, q in groups[i]) for j, i in enumerate(draw)}
            sh = capped_shares(vol, cap)
            pairs = [(p, sh[j] * Fr(q, vol[j])) for j, i in enumerate(draw) for p, q in groups[i]]
            v = weighted_median(pairs)
        vals.append(round_half_up(v * scale, step))
    vals.sort()
    return vals[24], vals[974]


def main():
    day = sys.argv[1]
    with open(os.path.join(day, "index.json")) as f:
        root = json.load(f, parse_float=str, parse_int=str)
    lines = {}
    with open(os.path.join(day, "observations.csv"), newline="") as f:
        for r in csv.DictReader(f):
            lines.setdefault(r["grade"], []).append(r)
    date = root["date"]
    for row in root["rows"]:
        g, level, meth = row["grade"], row["level"], row["methodology"]
        obs = lines.get(g, [])
        seed = seed_of(g, date)
        # the grade's rounding and cap floor, from its canonical definition
        gd = json.loads(row.get("grade_definition") or "{}")
        step = Fr(gd.get("rounding", "0.0001"))
        cap = Fr(gd.get("cap_floor", "0.300000"))
        res = None
        if meth in ("v1", "v3") and level in ("offers", "trades"):
            kind = "offer" if level == "offers" else "trade"
            by = {}
            for r in obs:
                if r["role"] == "used" and r["kind"] == kind:
                    if kind == "offer":
                        by.setdefault(r["group"], []).append(Fr(r["price"]))
                    else:
                        by.setdefault(r["group"], []).append(
                            (Fr(r["price"]), int(Fr(r["quantity"]) * 10 ** 6)))
            groups = [by[k] for k in sorted(by)]
            adj = dec(row["adjustment"]) if level == "offers" and row["adjustment"] else Fr(1)
            res = interval(groups, "medians" if kind == "offer" else "weighted", adj, seed,
                           step=step, cap=cap)
        elif meth == "v2" and level == "offers" and row["event"] is None and row["relative"]:
            by, rby = {}, {}
            for r in obs:
                if r["role"] == "used" and r["kind"] == "offer" and r["matched"] == "1":
                    base = Fr(r["base_price"])
                    by.setdefault(r["group"], []).append(ratio12(Fr(r["price"]), base))
                    rby.setdefault(r["group"], []).append(ratio12(Fr(r["ref_price"]), base))
            keys = sorted(by)
            res = interval([by[k] for k in keys], "medians", Fr(row["chain_prev"]), seed,
                           [rby[k] for k in keys], step=step, cap=cap)
        if res is None:
            print(f"{g} skip")
        else:
            lo, hi = res
            print(f"{g} {float(lo):.4f} {float(hi):.4f}")


if __name__ == "__main__":
    main()
