#!/usr/bin/python3
"""tests/ref/ref_reach.py -- the manipulation figures of methodology v3 in
the unit that settles money (METHODOLOGY.md §11.4), written from the
text, on tests/ref/ref_v3.py's v3 (exact fractions):

    ref_reach.py --db DB --grades FILE --from D --to D

prints, per v3 grade and day of the range, the day's reach (the lowest
and highest value one participant can give the day by withdrawing,
printing an extreme price, or entering as a new group; whether it can
make the day gain or lose its value; whether an operation leaves it
carried) and the month's largest FSP move by kind through the day, over
calendar and business days, as CSV:

    date,grade,days,business_days,<kind>_low,<kind>_high,<kind>_void,
    <kind>_carry (kinds absent, print, new),
    fsp_absent,fsp_print,fsp_new,fsp_absent_business,...

(values 4 decimals, figures 6 decimals rounded up, '' none), the
columns tests/test_e2e_reach.c compares with index.json's
v3.manipulation.  `ref_reach.py --published DIR --grades FILE` prints
the same columns from the index.json files of a publication directory
(only formatting: nothing is computed).
"""
import argparse
import datetime as dt
import json
import math
import sqlite3
import sys
import os
from fractions import Fraction as Fr

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_index as ri  # noqa: E402
import ref_v3  # noqa: E402

KINDS = ("absent", "print", "new")
HI, LO = 10 ** 12, 1          # 1,000,000 USD and 0.000001 USD per GPU-hour, micro
NEW = "\x00newcomer"          # a group no catalogue names


class Reach(ref_v3.Grade3):
    """Grade3 whose row() also works out the day's reach."""

    def __init__(self, G):
        super().__init__(G, ri)
        self.reaches = []     # the day's reach dicts, in order

    def row(self, d, st, level, value, carry, adj, before, role, joined, loo, idx, gap, gap_m,
            unobserved):
        self.reaches.append(self.reach(d, st, level, value, adj, before, role, unobserved))
        return super().row(d, st, level, value, carry, adj, before, role, joined, loo, idx, gap,
                           gap_m, unobserved)

    def reach(self, d, st, level, value, adj, before, role, unobserved):
        P = self.G.p
        v0 = None if value is None else int(value * 10000)
        R = {k: {"lo": None, "hi": None, "void": False, "carry": level == "carried"}
             for k in KINDS}

        def widen(k, v):
            if v is None:
                return
            r = R[k]
            r["lo"] = v if r["lo"] is None else min(r["lo"], v)
            r["hi"] = v if r["hi"] is None else max(r["hi"], v)

        def fold(k, t, o):
            s = self.stats(t, o)
            lv, v, _ = ri.evaluate(P, s["t_raw"], s["o_raw"], adj, *before)
            if v is None:
                if v0 is not None:
                    R[k]["void"] = True
                return
            if v0 is None:
                R[k]["void"] = True
            if lv == "carried":
                R[k]["carry"] = True
            widen(k, int(v * 10000))

        for k in KINDS:
            widen(k, v0)
        fix_t, fix_o = st["t"], st["o"]
        traders = {g for g, p, q, kept in fix_t if kept}
        volume = sum(q for g, p, q, kept in fix_t if kept and q > 0)
        m = int(P["min_trade_volume"] * 10 ** 6)
        q_cap = 100 * (volume + m) + 10 ** 6
        minp = int(P["min_providers"])
        members = sorted(g for g, r in role.items() if r in ("member", "imputed"))
        if not unobserved:
            for g in members:
                t = [x for x in fix_t if x[0] != g]
                o = [x for x in fix_o if x[0] != g]
                fold("absent", t, o)
                traded = any(x[0] == g for x in fix_t)
                trade_ops = len(traders) + (0 if traded else 1) >= minp
                for price in (LO, HI):
                    fold("print", t, o + [(g, price, 0, True)])
                    if trade_ops:
                        fold("print", t + [(g, price, q_cap, True)], o + [(g, price, 0, True)])
        if sum(1 for r in role.values() if r == "member") == 1:
            lv, v, _ = ri.evaluate(P, None, None, adj, *before)
            if v is None:
                if v0 is not None:
                    R["absent"]["void"] = True
            else:
                R["absent"]["carry"] = True
                widen("absent", int(v * 10000))
        widen("absent", R["print"]["lo"])
        widen("absent", R["print"]["hi"])
        R["absent"]["void"] |= R["print"]["void"]
        R["absent"]["carry"] |= R["print"]["carry"]
        # a new group, present: with no member present the imputed members
        # complete its fix
        bt, bo = list(fix_t), list(fix_o)
        if unobserved:
            for g, r in role.items():
                if r == "imputed":
                    bt += [(g, p, q, True) for p, q in self.groups[g]["t"]]
                    bo += [(g, p, 0, True) for p in self.groups[g]["o"]]
        new_trades = len(traders if not unobserved else
                         {x[0] for x in bt if x[3]}) + 1 >= minp
        for price in (LO, HI):
            fold("new", bt, bo + [(NEW, price, 0, True)])
            if new_trades:
                fold("new", bt + [(NEW, price, q_cap, True)], bo + [(NEW, price, 0, True)])
                fold("new", bt + [(NEW, price, q_cap, True)], bo)
        return {"day": d, "v": v0, "carried": level == "carried", "R": R}


def weekday(d):
    return dt.date.fromisoformat(ri.date_of(d)).weekday() < 5


def fsp_move(prev, days, kind, business, span):
    """The largest move of the month's mean (e6, rounded up) over the
    windows of span days (and the carried or valueless days after)."""
    def counted(x):
        return not business or weekday(x["day"])
    n = sum(1 for x in days if x["v"] is not None and counted(x))
    if n == 0:
        return None
    ends = [x["R"][kind][b] for x in days + ([prev] if prev else []) for b in ("lo", "hi")
            if x["R"][kind][b] is not None]
    H, L = max(ends), min(ends)
    if prev and prev["day"] != days[0]["day"] - 1:
        prev = None
    best = 0
    for i in range(len(days)):
        j = i
        while j + 1 < len(days) and days[j + 1]["day"] - days[i]["day"] < span:
            j += 1
        while j + 1 < len(days) and (days[j + 1]["carried"] or days[j + 1]["v"] is None):
            j += 1
        up = dn = 0
        before = None
        if i == 0 and prev:
            r = prev["R"][kind]
            before = (r["lo"], r["hi"], r["void"])
        for x in days[i:j + 1]:
            r = x["R"][kind]
            lo, hi, vd = r["lo"], r["hi"], r["void"]
            if before and (x["carried"] or r["carry"] or (x["v"] is None and before[2])):
                if before[0] is not None:
                    lo = before[0] if lo is None else min(lo, before[0])
                if before[1] is not None:
                    hi = before[1] if hi is None else max(hi, before[1])
                vd = vd or before[2]
            before = (lo, hi, vd)
            if not counted(x):
                continue
            if vd:
                up += H - L
                dn += H - L
            elif x["v"] is not None:
                up += hi - x["v"]
                dn += x["v"] - lo
        best = max(best, up, dn)
    return math.ceil(Fr(best * 100, n))


def span_of(G, kind):
    A, K = int(G.p["admission_days"]), int(G.p["absence_days"])
    return {"absent": A + K + 1, "print": 31, "new": K + 1}[kind]


def month_of(d):
    return ri.date_of(d)[:7]


COLS = ["date", "grade", "days", "business_days"]
COLS += [f"{k}_{c}" for k in KINDS for c in ("low", "high", "void", "carry")]
COLS += [f"fsp_{k}" for k in KINDS] + [f"fsp_{k}_business" for k in KINDS]


def published(pub, ids):
    """The same columns from a publication directory's index.json files."""
    from decimal import Decimal
    print(",".join(COLS))

    def num(v, digits):
        return "" if v is None else str(Decimal(v).quantize(Decimal(1).scaleb(-digits)))
    rows = {}
    for day in sorted(os.listdir(pub)):
        path = os.path.join(pub, day, "index.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            doc = json.load(f, parse_float=Decimal)
        for r in doc["rows"]:
            m = (r.get("v3") or {}).get("manipulation")
            if not m or r["grade"] not in ids:
                continue
            out = [r["date"], r["grade"], str(m["days"]), str(m["business_days"])]
            for k in KINDS:
                x = m["day"][k]
                out += [num(x["low"], 4), num(x["high"], 4), str(x["void"]).lower(),
                        str(x["carry"]).lower()]
            for key in ("fsp_move", "fsp_move_business"):
                out += [num(m[key][k], 6) for k in KINDS]
            rows[(r["grade"], r["date"])] = ",".join(out)
    for g in ids:
        for (gid, date) in sorted(k for k in rows if k[0] == g):
            print(rows[(gid, date)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db")
    ap.add_argument("--grades", required=True)
    ap.add_argument("--from", dest="d_from")
    ap.add_argument("--to", dest="d_to")
    ap.add_argument("--published")
    a = ap.parse_args()
    with open(a.grades) as f:
        grades = [ri.Grade(g) for g in json.load(f)["grades"]]
    grades = [G for G in grades if G.method == "v3"]
    if a.published:
        published(a.published, [G.id for G in grades])
        return
    d_from, d_to = ri.day_of(a.d_from), ri.day_of(a.d_to)
    con = sqlite3.connect(a.db)
    con.row_factory = sqlite3.Row
    first = con.execute("SELECT min(day) FROM observations").fetchone()[0]
    start = min(first if first is not None else d_from, d_from)
    byday = ri.read_days(con, start, d_to, 2 ** 62)
    print(",".join(COLS))

    def num(v, digits):
        return "" if v is None else ri.fmt(Fr(v, 10 ** digits), digits)

    for G in grades:
        g3 = Reach(G)
        for d in range(start, d_to + 1):
            obs = [o for o in ri.latest_of_day(byday.get(d, [])) if G.match(o)]
            g3.day(d, obs, True)
        rs = g3.reaches
        for i, x in enumerate(rs):
            d = x["day"]
            if d < d_from:
                continue
            month = [y for y in rs[:i + 1] if month_of(y["day"]) == month_of(d)]
            before = [y for y in rs[:i + 1] if month_of(y["day"]) != month_of(d)]
            prev = before[-1] if before else None
            out = [ri.date_of(d), G.id, str(sum(1 for y in month if y["v"] is not None)),
                   str(sum(1 for y in month if y["v"] is not None and weekday(y["day"])))]
            for k in KINDS:
                r = x["R"][k]
                out += [num(r["lo"], 4), num(r["hi"], 4), str(r["void"]).lower(),
                        str(r["carry"]).lower()]
            for b in (0, 1):
                for k in KINDS:
                    out.append(num(fsp_move(prev, month, k, b, span_of(G, k)), 6))
            print(",".join(out))


if __name__ == "__main__":
    main()
