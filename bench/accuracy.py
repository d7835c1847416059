#!/usr/bin/python3
"""bench/accuracy.py -- helper of bench/accuracy: grade files and the report.

  accuracy.py grades --grades FILE --out DIR
      writes DIR/variants.json (each grade three times: as shipped, without
      the error screen and without the provider cap; and, when the grades
      are of another method than v1, each of those as v1 beside it, id +
      ".V1"), DIR/v1.json (each grade with method v1, for the grade lab's
      leave-one-out), DIR/truth.json (each grade with method v1 and every
      defence off, for the truth database) and DIR/method.txt (the shipped
      grades' method, "v3" say: the name the figures go under).
  accuracy.py report --work DIR [--csv FILE]
      reads DIR/{truth,on,off}.csv (`gpuidx index show` of the three
      databases) and DIR/lab-M.json, DIR/lab-v1.json (`grades evaluate
      --json` on the market with the pusher) and prints the Markdown tables
      of BENCHMARKS.md ("Accuracy against the true price"); --csv writes
      every figure, one row per grade, method, variant and market.  The
      grades are those of DIR/v1.json, in the grades file's order.

A grade without a day that has both a value and a true price (a GPU the
market does not list) is reported as "no data": in the tables, and in the
CSV as days 0 with every figure empty.  A figure that cannot be computed
(no consecutive days, no full month) is empty in the CSV and "--" in the
tables; the CSV never holds "nan".

Definitions (BENCHMARKS.md says the same in words):
  true price t_d   the grade's value on the truth database (sim/truth.c)
  MAE              mean over the days with a value of |v_d - t_d| (USD) and
                   of |v_d / t_d - 1| (%)
  bias             mean of v_d / t_d - 1 (%): the level offset
  change MAE       mean over consecutive days both with a value of
                   |ln(v_d / v_d-1) - ln(t_d / t_d-1)| (%)
  month error      per calendar month inside the run with at least 15
                   values: |mean of the month's values / mean of t over all
                   the month's days - 1| (%), its mean and max over months
                   (a futures contract settles on the month's mean value)
  pusher effect    max over days both valued of |v_on - v_off| (USD), on
                   the market with and without the pusher's trades
Only the standard library: csv, json, math.
"""
import argparse
import csv
import json
import math
import sys

VARIANTS = [("", "as shipped", {}),
            (".NOSCREEN", "no error screen", {"error_factor": "1000000"}),
            (".NOCAP", "no provider cap", {"cap_floor": "1"})]
TRUTH_PARAMS = {"error_factor": "1000000", "cap_floor": "1", "min_providers": 1,
                "min_trade_volume": "0"}
# parameters of methods v2 and v3, left out of the v1 twins
METHOD_ONLY = ("rebalance_months", "trade_carry_days", "anchor_days", "admission_days",
               "absence_days")
TWIN = ".V1"  # the v1 twin of a grade of another method, in the same builds
MIN_MONTH_VALUES = 15


def shipped_method(grades):
    """The method of the grades as shipped (one for the whole file)."""
    ms = {g.get("method", "v1") for g in grades}
    if len(ms) != 1:
        raise SystemExit("bench/accuracy: the grades mix methods %s" % sorted(ms))
    return ms.pop()


def cmd_grades(a):
    with open(a.grades) as f:
        grades = json.load(f)["grades"]
    method = shipped_method(grades)
    variants, v1, truth = [], [], []
    for g in grades:
        twin = {k: v for k, v in g.items() if k not in METHOD_ONLY}
        twin["method"] = "v1"
        for suffix, _, params in VARIANTS:
            h = dict(g)
            h["id"] = g["id"] + suffix
            h.update(params)
            variants.append(h)
            if method != "v1":  # the cross-section beside it (v1)
                h = dict(twin)
                h["id"] = g["id"] + suffix + TWIN
                h.update(params)
                variants.append(h)
        v1.append(twin)
        h = dict(twin)
        h.update(TRUTH_PARAMS)
        truth.append(h)
    for name, gs in (("variants", variants), ("v1", v1), ("truth", truth)):
        with open("%s/%s.json" % (a.out, name), "w") as f:
            json.dump({"grades": gs}, f, indent=1)
            f.write("\n")
    with open("%s/method.txt" % a.out, "w") as f:
        f.write(method + "\n")


def read_show(path):
    """{grade: {date: (value or None, xs_value or None)}}"""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            v = float(r["value"]) if r["value"] else None
            xs = float(r["xs_value"]) if r.get("xs_value") else None
            out.setdefault(r["grade"], {})[r["date"]] = (v, xs)
    return out


def series(db, gid, method, shipped):
    """A grade's daily values by method: the shipped method's are the
    grade's own; v1's are its twin's (TWIN) when it has one, else the
    grade's own (shipped v1)."""
    rows = db.get(gid + TWIN if method == "v1" and shipped != "v1" else gid, {})
    return {d: vx[0] for d, vx in rows.items() if vx[0] is not None}


def metrics(v, t):
    days = sorted(d for d in v if d in t)
    if not days:
        return {"days": 0}
    ae = [abs(v[d] - t[d]) for d in days]
    rel = [v[d] / t[d] - 1 for d in days]
    chg = []
    for a, b in zip(days, days[1:]):
        if _next_day(a) == b:
            chg.append(abs(math.log(v[b] / v[a]) - math.log(t[b] / t[a])))
    months = {}
    for d in sorted(t):
        months.setdefault(d[:7], []).append(d)
    merr = []
    for m, md in months.items():
        vals = [v[d] for d in md if d in v]
        if len(md) != _month_len(m) or len(vals) < MIN_MONTH_VALUES:
            continue
        tm = sum(t[d] for d in md) / len(md)
        merr.append(abs(sum(vals) / len(vals) / tm - 1))
    return {
        "days": len(days),
        "mae_usd": sum(ae) / len(ae),
        "mae_pct": 100 * sum(abs(x) for x in rel) / len(rel),
        "bias_pct": 100 * sum(rel) / len(rel),
        "chg_mae_pct": 100 * sum(chg) / len(chg) if chg else float("nan"),
        "months": len(merr),
        "month_mean_pct": 100 * sum(merr) / len(merr) if merr else float("nan"),
        "month_max_pct": 100 * max(merr) if merr else float("nan"),
    }


def _next_day(d):
    import datetime as dt
    return (dt.date.fromisoformat(d) + dt.timedelta(days=1)).isoformat()


def _month_len(m):
    import calendar
    y, mo = int(m[:4]), int(m[5:7])
    return calendar.monthrange(y, mo)[1]


def effect(on, off):
    days = [d for d in on if d in off]
    if not days:
        return 0.0, ""
    d = max(days, key=lambda x: (abs(on[x] - off[x]), x))
    return abs(on[d] - off[d]), d


def lab(path):
    with open(path) as f:
        return {g["id"]: g["leave_one_out"] for g in json.load(f)["grades"]}


def fmt(x, nd=2):
    return "--" if x is None or (isinstance(x, float) and math.isnan(x)) else "%.*f" % (nd, x)


def csv_cell(x):
    if isinstance(x, float):
        return "" if math.isnan(x) else "%.6f" % x
    return "" if x is None else x


NO_DATA = "no data"


def cmd_report(a):
    w = a.work
    truth = read_show(w + "/truth.csv")
    on, off = read_show(w + "/on.csv"), read_show(w + "/off.csv")
    with open(w + "/method.txt") as f:
        M = f.read().strip()
    loo = {M: lab(w + "/lab-%s.json" % M), "v1": lab(w + "/lab-v1.json")}
    with open(w + "/v1.json") as f:
        grades = [g["id"] for g in json.load(f)["grades"]]
    rows = []
    for g in grades:
        t = {d: vx[0] for d, vx in truth.get(g, {}).items() if vx[0] is not None}
        for suffix, vname, _ in VARIANTS:
            for method in ((M, "v1") if M != "v1" else ("v1",)):
                for market, db in (("pusher on", on), ("pusher off", off)):
                    m = metrics(series(db, g + suffix, method, M), t)
                    m.update(grade=g, variant=vname, method=method, market=market)
                    if m["days"] and market == "pusher on":
                        e, ed = effect(series(on, g + suffix, method, M),
                                       series(off, g + suffix, method, M))
                        m.update(push_effect_usd=e, push_effect_day=ed)
                        if suffix == "":
                            m["loo_max_usd"] = loo[method][g]["max_abs"]
                    rows.append(m)
    if a.csv:
        cols = ["grade", "method", "variant", "market", "days", "mae_usd", "mae_pct",
                "bias_pct", "chg_mae_pct", "months", "month_mean_pct", "month_max_pct",
                "push_effect_usd", "push_effect_day", "loo_max_usd"]
        with open(a.csv, "w", newline="") as f:
            wr = csv.writer(f, lineterminator="\n")
            wr.writerow(cols)
            for r in rows:
                wr.writerow([csv_cell(r.get(c)) for c in cols])
    get = {(r["grade"], r["method"], r["variant"], r["market"]): r for r in rows if r["days"]}
    nodata = [g for g in grades if not any(r["grade"] == g and r["days"] for r in rows)]

    def cell(g, method, variant, market, key, nd=2):
        r = get.get((g, method, variant, market))
        return fmt(r.get(key), nd) if r else "--"

    def nodata_row(g, ncells):
        out.write("| %s |%s\n" % (g, (" %s |" % NO_DATA) * ncells))

    out = sys.stdout
    out.write("MAE of the value against the true price, % (mean |v/t - 1|; "
              "in brackets the bias, mean v/t - 1), market with the pusher:\n\n")
    out.write(("| grade | %s | v1 (cross-section) | v1 no screen | v1 no cap | %s no screen "
               "| %s no cap | %s, no pusher | v1, no pusher |\n") % (M, M, M, M))
    out.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for g in grades:
        if g in nodata:
            nodata_row(g, 8)
            continue
        cs = []
        for method, variant, market in ((M, "as shipped", "pusher on"),
                                        ("v1", "as shipped", "pusher on"),
                                        ("v1", "no error screen", "pusher on"),
                                        ("v1", "no provider cap", "pusher on"),
                                        (M, "no error screen", "pusher on"),
                                        (M, "no provider cap", "pusher on"),
                                        (M, "as shipped", "pusher off"),
                                        ("v1", "as shipped", "pusher off")):
            cs.append("%s (%s)" % (cell(g, method, variant, market, "mae_pct"),
                                   cell(g, method, variant, market, "bias_pct", 1)))
        out.write("| %s | %s |\n" % (g, " | ".join(cs)))
    out.write("\nTracking and settlement, as shipped, market with the pusher: MAE in USD, "
              "MAE of daily changes (%), error of the monthly mean (%: mean / max over "
              "the full months):\n\n")
    out.write(("| grade | days | true price (mean) | %s MAE $ | v1 MAE $ | %s change MAE "
               "| v1 change MAE | %s month error | v1 month error |\n") % (M, M, M))
    out.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for g in grades:
        if g in nodata:
            nodata_row(g, 8)
            continue
        t = [vx[0] for vx in truth[g].values() if vx[0] is not None]
        r2 = get.get((g, M, "as shipped", "pusher on"))
        r1 = get.get((g, "v1", "as shipped", "pusher on"))
        out.write("| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n" % (
            g, r2["days"] if r2 else "--", fmt(sum(t) / len(t), 4) if t else "--",
            cell(g, M, "as shipped", "pusher on", "mae_usd", 4),
            cell(g, "v1", "as shipped", "pusher on", "mae_usd", 4),
            cell(g, M, "as shipped", "pusher on", "chg_mae_pct"),
            cell(g, "v1", "as shipped", "pusher on", "chg_mae_pct"),
            cell(g, M, "as shipped", "pusher on", "month_mean_pct"),
            cell(g, M, "as shipped", "pusher on", "month_max_pct"),
            cell(g, "v1", "as shipped", "pusher on", "month_mean_pct"),
            cell(g, "v1", "as shipped", "pusher on", "month_max_pct")))
    out.write("\nThe pusher's effect: the largest |value with the pusher - value without| "
              "over the run (USD, its day), against the grade lab's largest "
              "leave-one-provider-out move on the market with the pusher:\n\n")
    out.write(("| grade | %s effect | %s leave-one-out max | v1 effect | v1 leave-one-out max "
               "| v1 no cap effect | %s no cap effect |\n") % (M, M, M))
    out.write("|---|---:|---:|---:|---:|---:|---:|\n")
    for g in grades:
        if g in nodata:
            nodata_row(g, 6)
            continue

        def eff(method, variant):
            r = get.get((g, method, variant, "pusher on"))
            if not r:
                return "--"
            e = r["push_effect_usd"]
            return "%.4f (%s)" % (e, r["push_effect_day"]) if e > 0 else "0"
        out.write("| %s | %s | %s | %s | %s | %s | %s |\n" % (
            g, eff(M, "as shipped"), cell(g, M, "as shipped", "pusher on", "loo_max_usd", 4),
            eff("v1", "as shipped"), cell(g, "v1", "as shipped", "pusher on", "loo_max_usd", 4),
            eff("v1", "no provider cap"), eff(M, "no provider cap")))
    for g in nodata:
        valued = any(vx[0] is not None or vx[1] is not None
                     for vx in list(on.get(g, {}).values()) + list(on.get(g + TWIN, {}).values()))
        priced = any(vx[0] is not None for vx in truth.get(g, {}).values())
        why = ("no true price and no value: the market has no observation of the grade"
               if not valued and not priced else
               "no value" if not valued else "no true price" if not priced else
               "no day with both a value and a true price")
        out.write("\n%s: %s (%s).\n" % (g, NO_DATA, why))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("grades")
    s.add_argument("--grades", required=True)
    s.add_argument("--out", required=True)
    s = sub.add_parser("report")
    s.add_argument("--work", required=True)
    s.add_argument("--csv")
    a = p.parse_args()
    {"grades": cmd_grades, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
