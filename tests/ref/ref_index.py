#!/usr/bin/python3
"""tests/ref/ref_index.py -- an independent reference implementation of index
methodology v1 and v2 (METHODOLOGY.md §1-§5, §10 and §11; docs/ingest.md),
written from the text alone, not from index/*.c.  v2 (the chain) is
tests/ref/ref_v2.py, the manipulation figures of §11 tests/ref/ref_manip.py.  Used
to check `gpuidx index build` + `index show` field
by field (tests/test_e2e_refindex.c, tests/test_e2e_refindex_v2.c,
tools/ref_real.sh).

Usage:
  /usr/bin/python3 tests/ref/ref_index.py --db DB --grades FILE --from D --to D
        [--as-of ISO-TIME] [--grade ID] [--stats FILE] [--no-manip]
        # `index show` CSV (vintage empty); --stats counts, over the v2
        # grades, how often each rule of §10 decided something;
        # --no-manip stops at `note` (no §11 figures: faster)
  /usr/bin/python3 tests/ref/ref_index.py gen --days N --seed S --out DIR [--start D]
        # writes DIR/market.csv, a small canonical market that exercises
        # the screen, the cap, exact-half medians, thin days, the
        # adjustment, carry and suspension, and for v2 providers entering
        # and leaving, relisted SKUs, trade pauses, feed outages, x10
        # prints on a provider with two offers, providers trading in turn
        # with trade carry, an entry inside an anchor window (v2_rules).

Output: the §13 header plus, after `vintage`, xs_value, xs_level, relative,
n_matched, n_matched_providers, panel_change, event, splice, note (§10.6):
v1 rows leave the v2 columns empty and carry the note of a carried or
suspended day; v2 rows are the v1 row with value, level and the band
replaced; then the five manipulation figures of §11 (loo_move,
cost_tick_gpu_hours, cost_1pct_gpu_hours, cost_tick_offers,
cost_1pct_offers), computed only for the rows printed.  Fields are quoted
by RFC 4180 when they need it.

Everything that decides a published number is exact (fractions.Fraction):
prices are integer micro-USD, volumes integer micro-GPU-hours, the chain
integer nano-USD.  Every grade is computed from the first observation on
(the v2 chain depends on its whole history; v1 needs adj_lookback_days).
Observations come from the view observations_readable joined to batches
(for the --as-of cut-off); the store (ingest) is trusted, the index is not.
"""
import argparse
import csv
import datetime as dt
import fnmatch
import json
import random
import sqlite3
import sys
import os
from fractions import Fraction as Fr

sys.dont_write_bytecode = True  # no tests/ref/__pycache__ in the source tree
import ref_v2  # noqa: E402 (tests/ref/ref_v2.py, beside this file)
import ref_manip  # noqa: E402 (tests/ref/ref_manip.py: §11)
import ref_v3  # noqa: E402 (tests/ref/ref_v3.py: §13)

TIERS = ["unrated", "underperform", "bronze", "silver", "gold", "platinum"]
PARAM_DEFAULTS = {
    "error_factor": Fr(3), "min_trade_volume": Fr(1000), "min_providers": Fr(3),
    "cap_floor": Fr(3, 10), "max_carry_days": Fr(5), "adj_lookback_days": Fr(30),
    "adj_min_days": Fr(5), "restate_threshold": Fr(1, 1000), "rounding": Fr(1, 10000),
}
V2_DEFAULTS = {"rebalance_months": Fr(1), "anchor_days": Fr(7), "trade_carry_days": Fr(3)}
V3_DEFAULTS = {"admission_days": Fr(7), "absence_days": Fr(7)}
ALL_SCOPES = ["bare-metal", "managed", "vm", "container"]
ALL_COVERS = ["instance", "gpu-only", "cpu-heavy", "partial-gpu"]


def as_list(v):
    return [v] if isinstance(v, str) else list(v)


def load_region_groups(path):
    """data/regions.csv: group,region[,note] -> {group (lower): [globs]}."""
    groups = {}
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    except OSError:
        return groups
    if not rows:
        return groups
    hdr = [h.strip().lower() for h in rows[0]]
    gi, ri = hdr.index("group"), hdr.index("region")
    for r in rows[1:]:
        if len(r) > max(gi, ri) and r[gi].strip():
            groups.setdefault(r[gi].strip().lower(), []).append(r[ri].strip())
    return groups


REGION_GROUPS = load_region_groups(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regions.csv"))
EPOCH = dt.date(1970, 1, 1)


def day_of(s):
    return (dt.date.fromisoformat(s) - EPOCH).days


def date_of(d):
    return (EPOCH + dt.timedelta(days=d)).isoformat()


def round_half_up(x, step):
    """x (Fraction, >= 0 or not) to a multiple of step, half away from zero."""
    q = x / step
    n = (abs(q.numerator) * 2 + q.denominator) // (2 * q.denominator)
    return (n if q >= 0 else -n) * Fr(step)


def fmt(x, digits):
    """Fraction -> decimal text with `digits` decimals, half-up."""
    step = Fr(1, 10 ** digits)
    r = round_half_up(x, step)
    units = r / step
    assert units.denominator == 1
    u = units.numerator
    sign = "-" if u < 0 else ""
    u = abs(u)
    if digits == 0:
        return f"{sign}{u}"
    return f"{sign}{u // 10 ** digits}.{u % 10 ** digits:0{digits}d}"


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n % 2:
        return Fr(xs[n // 2])
    return (Fr(xs[n // 2 - 1]) + Fr(xs[n // 2])) / 2


def quantile_sorted(xs, f):
    """gsl_stats_quantile_from_sorted_data, exact (index (n-1) f)."""
    n = len(xs)
    index = Fr(f) * (n - 1)
    lhs = index.numerator // index.denominator
    delta = index - lhs
    if n == 0:
        return None
    if lhs == n - 1:
        return Fr(xs[lhs])
    return (1 - delta) * xs[lhs] + delta * xs[lhs + 1]


# ---------------------------------------------------------------- grades
class Grade:
    def __init__(self, g):
        self.id = g["id"]
        self.gpu = set(g["gpu"])
        self.scope = set(g.get("scope", ALL_SCOPES))
        self.min_tier = TIERS.index(g.get("min_tier", "unrated").lower())
        term = g.get("term", "on-demand").lower()
        self.term, self.tm = term, None
        if term.startswith("reserved:"):
            a, b = term.split(":", 1)[1].split("-")
            self.term, self.tm = "reserved", (int(a), int(b))
        # a region entry naming a group of data/regions.csv stands for its globs
        self.regions = []
        for r in as_list(g.get("regions", ["*"])):
            self.regions += REGION_GROUPS.get(r.lower(), [r])
        self.providers = as_list(g.get("providers", ["*"]))
        self.segments = g.get("segments")
        # what the price covers (data/skus.csv) and the sku globs
        self.covers = set(as_list(g.get("covers", ALL_COVERS)))
        self.skus = as_list(g.get("skus", ["*"]))
        self.method = g.get("method", "v1")
        self.p = dict(PARAM_DEFAULTS)
        self.p.update(V2_DEFAULTS)
        self.p.update(V3_DEFAULTS)
        for k in self.p:
            if k in g:
                self.p[k] = Fr(str(g[k]))

    def match(self, o):
        if o["gpu"] not in self.gpu or o["scope"] not in self.scope:
            return False
        if TIERS.index(o["tier"]) < self.min_tier:
            return False
        if o["term"] != self.term:
            return False
        if self.tm and not (self.tm[0] <= o["term_months"] <= self.tm[1]):
            return False
        reg = (o["region"] or "")
        if not any(fnmatch.fnmatchcase(reg.lower(), r.lower()) for r in self.regions):
            return False
        if not any(r == "*" or r.lower() in (o["provider"].lower(), o["grp"].lower())
                   for r in self.providers):
            return False
        if self.segments is not None and o["segment"] not in self.segments:
            return False
        if o["covers"] not in self.covers:
            return False
        sku = (o["sku"] or "")
        if not any(fnmatch.fnmatchcase(sku.lower(), k.lower()) for k in self.skus):
            return False
        return True


# ---------------------------------------------------------------- the method
def screen(obs, F):
    """Per-provider error screen; returns (kept, n_excluded)."""
    by = {}
    for o in obs:
        by.setdefault(o["grp"], []).append(o)
    kept, nex = [], 0
    for grp, lst in by.items():
        if len(lst) < 3:
            kept += lst
            continue
        m = median([o["price"] for o in lst])
        for o in lst:
            if o["price"] > F * m or o["price"] < m / F:
                nex += 1
            else:
                kept.append(o)
    return kept, nex


def capped_shares(vol, cap_floor):
    """vol: {grp: int volume}; water-filling cap, exact."""
    n = len(vol)
    s = max(cap_floor, Fr(1, n))
    total = sum(vol.values())
    share = {g: Fr(v, total) for g, v in vol.items()}
    capped = set()
    while True:
        over = [g for g in share if g not in capped and share[g] > s]
        if not over:
            return share
        capped |= set(over)
        rest = sum(v for g, v in vol.items() if g not in capped)
        left = 1 - s * len(capped)
        for g in vol:
            share[g] = s if g in capped else left * Fr(vol[g], rest)


def weighted_median(pairs):
    """pairs: [(price, weight)] exact; the rule of METHODOLOGY.md §4.1."""
    w = {}
    for p, x in pairs:
        w[p] = w.get(p, 0) + x
    prices = sorted(w)
    total = sum(w.values())
    half = total / 2
    cum = Fr(0)
    for i, p in enumerate(prices):
        cum += w[p]
        if cum == half:
            return (Fr(p) + Fr(prices[i + 1])) / 2
        if cum > half:
            return Fr(p)
    raise AssertionError("weighted median")


def latest_of_day(obs):
    """Offers: only the latest snapshot of each key within the day counts.
    Reading (METHODOLOGY §2.3): the latest snapshot supersedes the earlier
    ones whatever grade they matched -- a quote re-listed out of a grade
    (other scope, region, ...) is no longer offered in it -- so the
    latest snapshot is taken over the whole day first, then the grade
    filter applies."""
    latest = {}
    out = []
    for o in obs:
        if o["kind"] != "offer":
            out.append(o)
            continue
        k = o["okey"]
        if k not in latest or o["t"] > latest[k]["t"]:
            latest[k] = o
    return out + list(latest.values())


def raw_values(G, obs):
    """One grade-day's eligible obs -> everything not depending on history."""
    P = G.p
    trades = [o for o in obs if o["kind"] == "trade" and o["status"] == "ok"]
    offers = [o for o in obs if o["kind"] == "offer"]
    r = {"trades": trades, "offers": offers}
    st, tex = screen(trades, P["error_factor"])
    so, oex = screen(offers, P["error_factor"])
    r.update(st=st, tex=tex, so=so, oex=oex)
    vol = {}
    for o in st:
        vol[o["grp"]] = vol.get(o["grp"], 0) + o["qty"]
    r["vol"] = vol
    r["trades_raw"] = None
    if (sum(vol.values()) >= P["min_trade_volume"] * 10 ** 6
            and len(vol) >= P["min_providers"]):
        share = capped_shares(vol, P["cap_floor"])
        r["trades_raw"] = weighted_median(
            [(o["price"], share[o["grp"]] * Fr(o["qty"], vol[o["grp"]])) for o in st])
    by = {}
    for o in so:
        by.setdefault(o["grp"], []).append(o["price"])
    r["offers_raw"] = None
    if len(by) >= P["min_providers"]:
        r["offers_raw"] = median([median(v) for v in by.values()])
    r["ogrp"] = by
    return r


def spread(prices):
    xs = sorted(prices)
    out = [quantile_sorted(xs, Fr(q, 100)) for q in (10, 25, 50, 75, 90)]
    out += [Fr(xs[0]), Fr(xs[-1])]
    return [fmt(round_half_up(x, 1) / 10 ** 6, 6) for x in out]


def xs_note(G, r, n_elig):
    """The cross-section's note on a day without a v1 fix (§10.6)."""
    if n_elig == 0:
        return "no eligible observations"
    P = G.p
    tvol = sum(r["vol"].values())
    return (f"trades: {fmt(Fr(tvol, 10 ** 6), 2)} GPU-hours from {len(r['vol'])} providers"
            f" (need {fmt(P['min_trade_volume'], 2)} from {int(P['min_providers'])});"
            f" offers: {len(r['ogrp'])} providers after the screen"
            f" (need {int(P['min_providers'])})")


def read_days(con, start, d_to, as_of):
    q = ("SELECT v.day, v.key_hash, v.observed_at, v.kind, v.scope, v.tier, v.term,"
         " v.term_months, v.status, v.gpu, v.provider, v.grp, v.segment, v.price_micro,"
         " v.quantity_micro, v.region, v.source, v.ident, v.covers, v.sku"
         " FROM observations_readable v JOIN batches b ON b.batch_id = v.batch_id"
         " WHERE v.day BETWEEN ? AND ? AND b.ingested_at <= ? ORDER BY v.day")
    byday = {}
    for row in con.execute(q, (start, d_to, as_of)):
        o = dict(row)
        o["t"] = o["observed_at"]
        o["price"] = o["price_micro"]
        o["qty"] = o["quantity_micro"] or 0
        o["okey"] = (o["source"], o["ident"]) if o["ident"] is not None else o["key_hash"]
        byday.setdefault(o["day"], []).append(o)
    return byday


def band_text(b):
    if b is None:
        return [""] * 7
    return [fmt(round_half_up(x, 1) / 10 ** 6, 6) for x in b]


def adjustment(P, raws, d):
    """a of an offers day d (§4.3): the median of trades_raw / offers_raw
    over the lookback days with both, half-up to 1e-6; 1 with too few."""
    lb = int(P["adj_lookback_days"])
    ratios = [raws[x]["trades_raw"] / raws[x]["offers_raw"]
              for x in range(d - lb, d)
              if x in raws and raws[x]["trades_raw"] is not None
              and raws[x]["offers_raw"] is not None]
    if len(ratios) >= P["adj_min_days"]:
        return round_half_up(median(ratios), Fr(1, 10 ** 6))
    return Fr(1)


def evaluate(P, t_raw, o_raw, a, prev_value, carry):
    """The v1 value of a day from its raw values (micro-USD, None when the
    level does not qualify), its adjustment a and the carry state before
    it: (level, value in USD or None, carry after)."""
    if t_raw is not None:
        return "trades", round_half_up(t_raw / 10 ** 6, P["rounding"]), 0
    if o_raw is not None:
        return "offers", round_half_up(o_raw * a / 10 ** 6, P["rounding"]), 0
    if prev_value is not None and carry < P["max_carry_days"]:
        return "carried", prev_value, carry + 1
    return "suspended", None, 0


def manip_v1(G, obs, r, adj, prev_value, carry, v0, level):
    """§11 for a v1 row (tests/ref/ref_manip.py): [loo_move, cost_tick,
    cost_1pct, offers_tick, offers_1pct] as values or None."""
    P = G.p
    if v0 is None:
        return [None] * 5

    def value_of(t_raw, o_raw):
        return evaluate(P, t_raw, o_raw, adj, prev_value, carry)[1]

    move = None
    if level in ("trades", "offers"):
        def without(g):
            r2 = raw_values(G, [o for o in obs if o["grp"] != g])
            return value_of(r2["trades_raw"], r2["offers_raw"])
        move = ref_manip.loo(v0, sorted({o["grp"] for o in r["trades"] + r["offers"]}),
                             without)
    t, o = ref_manip.costs(P, r, v0, value_of, capped_shares, weighted_median, median)
    return [move] + t + o


def manip_v2(G, chain, d, obs, r, adj, prev_value, carry, xs_level):
    """§11 for a v2 row, part 1, before the chain steps on day d: the value
    of the day without each group (ref_manip M4), {group: value or None};
    None when the cross-section is not fixed (nothing is measured)."""
    if xs_level not in ("trades", "offers"):
        return None
    P = G.p
    out = {}
    for g in sorted({o["grp"] for o in r["trades"] + r["offers"]}):
        obs2 = [o for o in obs if o["grp"] != g]
        r2 = raw_values(G, obs2)
        lv, xv, _ = evaluate(P, r2["trades_raw"], r2["offers_raw"], adj, prev_value, carry)
        fixed = lv in ("trades", "offers")
        day = ref_v2.Day(d, ref_v2.offer_constituents(r2["so"]),
                         ref_v2.trade_constituents(r2["st"], weighted_median), len(obs2),
                         lv, int(xv * 10 ** 9) if fixed else None, "")
        w = chain.peek(day, g)
        out[g] = (None if w["chain"] is None
                  else round_half_up(Fr(w["chain"], 10 ** 9), P["rounding"]))
    return out


def manip_v2_row(G, without, est, event, r, adj, prev_value, carry, v0):
    """§11 for a v2 row, part 2, after the step: the figures from the
    values without each group and, on an anchor day, the window's other
    estimates (nano-USD)."""
    P = G.p
    if v0 is None:
        return [None] * 5
    move = None if without is None else ref_manip.loo(
        v0, sorted(without), lambda g: without[g])
    if not event:
        return [move, None, None, None, None]

    def value_of(t_raw, o_raw):
        lv, xv, _ = evaluate(P, t_raw, o_raw, adj, prev_value, carry)
        if lv not in ("trades", "offers"):
            return None
        if P["anchor_days"] <= 1:
            return xv
        a = ref_v2.rhu(median(est + [int(xv * 10 ** 9)]), 1)
        return round_half_up(a / 10 ** 9, P["rounding"])
    t, o = ref_manip.costs(P, r, v0, value_of, capped_shares, weighted_median, median)
    return [move] + t + o


def manip_text(m):
    """The five columns of index show."""
    out = ["" if m[0] is None else fmt(m[0], 4)]
    out += ["" if x is None else fmt(Fr(x, 100), 2) for x in m[1:3]]
    out += ["" if x is None else str(x) for x in m[3:5]]
    return out


def build(db, grades, d_from, d_to, as_of, stats=None, manip=True):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    first = con.execute("SELECT min(day) FROM observations").fetchone()[0]
    if first is None:
        first = d_from
    lookback = max(int(G.p["adj_lookback_days"]) for G in grades)
    start = min(first, d_from - lookback)  # from the first observation: the chain's history
    byday = read_days(con, start, d_to, as_of)
    rows = []
    for G in grades:
        P = G.p
        if G.method == "v3":
            g3 = ref_v3.Grade3(G, sys.modules[__name__])
            for d in range(start, d_to + 1):
                obs = [o for o in latest_of_day(byday.get(d, [])) if G.match(o)]
                row = g3.day(d, obs, manip and d_from <= d <= d_to)
                if d_from <= d <= d_to:
                    rows.append(row)
            continue
        raws = {}
        prev_value, carry = None, 0
        chain = ref_v2.Chain(P, date_of, day_of) if G.method == "v2" else None
        for d in range(start, d_to + 1):
            obs = [o for o in latest_of_day(byday.get(d, [])) if G.match(o)]
            r = raw_values(G, obs)
            raws[d] = r
            row = {"date": date_of(d), "grade": G.id, "adjustment": "",
                   "p": [""] * 7, "top": "", "methodology": "v1", "vintage": "",
                   "v2": [""] * 8, "note": ""}
            tvol = sum(r["vol"].values())
            row["trade_volume"] = fmt(Fr(tvol, 10 ** 6), 2)
            a = None
            n_elig = len(r["trades"]) + len(r["offers"])
            adj = adjustment(P, raws, d)
            prev_before, carry_before = prev_value, carry
            level, value, carry = evaluate(P, r["trades_raw"], r["offers_raw"], adj,
                                           prev_value, carry)
            row["level"] = level
            if level == "trades":
                row.update(n_obs=len(r["trades"]), n_excluded=r["tex"],
                           n_providers=len(r["vol"]))
                row["p"] = spread([o["price"] for o in r["st"]])
                row["top"] = fmt(Fr(max(r["vol"].values()), tvol), 6)
            elif level == "offers":
                a = adj
                row.update(n_obs=len(r["offers"]), n_excluded=r["oex"],
                           n_providers=len(r["ogrp"]), adjustment=fmt(a, 6))
                row["p"] = spread([o["price"] for o in r["so"]])
                nso = len(r["so"])
                row["top"] = fmt(Fr(max(len(v) for v in r["ogrp"].values()), nso), 6)
            else:
                allobs = r["trades"] + r["offers"]
                row.update(n_obs=len(allobs), n_excluded=0,
                           n_providers=len({o["grp"] for o in allobs}))
                row["note"] = xs_note(G, r, n_elig)
                if level == "suspended":
                    row["note"] += (f"; carried {carry_before} days already (max_carry_days)"
                                    if prev_before is not None else "; no earlier value to carry")
            prev_value = value
            row["value"] = "" if value is None else fmt(value, 4)
            want = manip and d_from <= d <= d_to
            if chain is not None:
                without = (manip_v2(G, chain, d, obs, r, adj, prev_before, carry_before,
                                    row["level"]) if want else None)
                out = v2_row(G, chain, d, r, a, value, n_elig, row)
                if want:
                    v0 = None if out["chain"] is None else round_half_up(
                        Fr(out["chain"], 10 ** 9), P["rounding"])
                    row["manip"] = manip_text(manip_v2_row(
                        G, without, out.get("est", []), out["event"], r, adj, prev_before,
                        carry_before, v0))
            elif want:
                row["manip"] = manip_text(manip_v1(G, obs, r, adj, prev_before, carry_before,
                                                   value, row["level"]))
            if d_from <= d <= d_to:
                rows.append(row)
        if chain is not None and stats is not None:
            for k, v in chain.stats.items():
                stats[k] = stats.get(k, 0) + v
    # ids are unique ignoring case (METHODOLOGY.md §1.2), and so is their order
    rows.sort(key=lambda x: (x["date"], x["grade"].lower()))
    return rows


def v2_row(G, chain, d, r, a, xs_value, n_elig, row):
    """Turns the v1 row of day d into the v2 row (§10.6)."""
    P = G.p
    fixed = row["level"] in ("trades", "offers")
    day = ref_v2.Day(d, ref_v2.offer_constituents(r["so"]),
                     ref_v2.trade_constituents(r["st"], weighted_median), n_elig, row["level"],
                     None if not fixed else int(xs_value * 10 ** 9), row["note"])
    out = chain.step(day)
    xs_level = row["level"]
    row["p"] = band_text(ref_v2.band(xs_level, r["st"], r["vol"], P["cap_floor"], r["ogrp"], a))
    row["methodology"] = "v2"
    row["level"] = out["level"]
    row["value"] = ("" if out["chain"] is None
                    else fmt(round_half_up(Fr(out["chain"], 10 ** 9), P["rounding"]), 4))
    row["note"] = out["note"]
    row["v2"] = ["" if xs_value is None else fmt(xs_value, 4), xs_level,
                 "" if out["relative"] is None else fmt(out["relative"], 12),
                 str(out["n_matched"]), str(out["n_matched_providers"]),
                 str(out["panel_change"]), out["event"],
                 "" if out["splice"] is None else fmt(out["splice"], 12)]
    return out


HEADER = ("date,grade,value,level,n_obs,n_excluded,n_providers,trade_volume_gpu_hours,"
          "adjustment,p10,p25,p50,p75,p90,min,max,top_provider_share,methodology,vintage,"
          "xs_value,xs_level,relative,n_matched,n_matched_providers,panel_change,event,"
          "splice,note")
MANIP_HEADER = ",loo_move,cost_tick_gpu_hours,cost_1pct_gpu_hours,cost_tick_offers,cost_1pct_offers"
# file format 4: what publication computes (empty in `index show`), then v3's
PUB4_HEADER = ",ci_low,ci_high,confidence,stale_share"
V3_HEADER = (",price_index,index_change,composition_gap,composition_gap_month,panel_size,"
             "n_imputed,n_candidates,index_providers")


def csv_field(s):
    """RFC 4180: quoted when it holds a comma, a quote or a line break."""
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def emit(rows, out, manip=True):
    out.write(HEADER + (MANIP_HEADER + PUB4_HEADER + V3_HEADER if manip else "") + "\n")
    for r in rows:
        f = [r["date"], r["grade"], r["value"], r["level"], str(r["n_obs"]),
             str(r["n_excluded"]), str(r["n_providers"]), r["trade_volume"],
             r["adjustment"]] + r["p"] + [r["top"], r["methodology"], r["vintage"]]
        f += r["v2"] + [r["note"]]
        if manip:
            f += r["manip"] + [""] * 4 + r.get("v3", [""] * 8)
        out.write(",".join(csv_field(x) for x in f) + "\n")

# ---------------------------------------------------------------- generator
def gen(args):
    rnd = random.Random(args.seed)
    start = dt.date.fromisoformat(args.start)
    provs = [("coreweave", "platinum", 2.20), ("lambda", "gold", 2.00),
             ("Lambda Labs", "gold", 2.05), ("crusoe", "gold", 2.30),
             ("nebius", "gold", 2.15), ("aws", "silver", 6.50), ("gcp", "silver", 6.00),
             ("runpod", "bronze", 1.90), ("tinyco", None, 1.70)]
    gpus = [("H100", 1.0), ("A100-80GB", 0.55)]
    terms = [("on-demand", "", 1.0), ("spot", "", 0.6), ("reserved", "2", 0.8)]
    rows = []
    tid = 0
    gap = set(range(40, 48)) | {60, 61, 62}        # no data: carry then suspend
    for k in range(args.days):
        day = start + dt.timedelta(days=k)
        if k in gap:
            continue
        drift = 1 + 0.1 * ((k % 17) - 8) / 8
        for gpu, gf in gpus:
            for term, tm, tf in terms:
                for prov, tier, base in provs:
                    if rnd.random() < 0.15:
                        continue
                    mid = base * gf * tf * drift
                    for j in range(rnd.randint(1, 4)):
                        snaps = 2 if rnd.random() < 0.2 else 1
                        for sn in range(snaps):
                            price = mid * rnd.uniform(0.9, 1.1)
                            r = rnd.random()
                            if r < 0.03:
                                price *= 10
                            elif r < 0.05:
                                price /= 10
                            hh = rnd.randint(0, 11) + 12 * sn
                            t = f"{day}T{hh:02d}:{rnd.randint(0, 59):02d}:00Z"
                            if rnd.random() < 0.05:       # offset near midnight
                                t = f"{day}T01:30:00+02:00"
                            rows.append(dict(kind="offer", id=f"{prov}-{gpu}-{term}-{j}",
                                             observed_at=t, provider=prov, gpu=gpu,
                                             price=f"{price:.6f}", quantity="",
                                             scope=rnd.choice(["vm", "bare-metal", "container"]),
                                             tier=tier or "", term=term, term_months=tm,
                                             status="", buyer="", region=rnd.choice(["us-east", "eu-west"]),
                                             _k=k))
                # trades on most days; thin days sometimes
                if rnd.random() < 0.3:
                    continue
                thin = rnd.random() < 0.2
                equal = rnd.random() < 0.15
                nprov = rnd.randint(2 if thin else 3, 5)
                chosen = rnd.sample(provs, nprov)
                for prov, tier, base in chosen:
                    for j in range(rnd.randint(1, 5)):
                        tid += 1
                        price = base * gf * tf * drift * rnd.uniform(0.85, 1.0)
                        qty = (100 if equal else rnd.randint(20, 120 if thin else 700))
                        if equal:
                            price = round(price, 2)
                        st, buyer = "", rnd.choice(["acme", "globex", ""])
                        r = rnd.random()
                        if r < 0.04:
                            price *= 10
                        elif r < 0.08:
                            st = "cancelled"
                        elif r < 0.11:
                            buyer = "amazon web services" if prov == "aws" else prov
                        t = f"{day}T{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}Z"
                        rows.append(dict(kind="trade", id=f"T{tid}", observed_at=t, provider=prov,
                                         gpu=gpu, price=f"{price:.6f}", quantity=str(qty),
                                         scope="vm", tier=tier or "", term=term, term_months=tm,
                                         status=st, buyer=buyer, region="us-east", _k=k))
    # screen bounds exactly: provider median 2.000000, 6.000000 kept (= 3x),
    # 6.000001 excluded; 0.666667 kept? (2/3 = 0.6666..., 0.666666 < bound -> excluded)
    day = start + dt.timedelta(days=5)
    for j, p in enumerate(["2.000000", "2.000000", "6.000000", "2.000000", "0.666667"]):
        rows.append(dict(kind="offer", id=f"bound-{j}", observed_at=f"{day}T23:59:59Z",
                         provider="voltage park", gpu="H100", price=p, quantity="", scope="vm",
                         tier="gold", term="on-demand", term_months="", status="", buyer="",
                         region="us-east", _k=5))
    rows = panel_events(rows, args, start)
    os.makedirs(args.out, exist_ok=True)
    cols = ["kind", "id", "observed_at", "provider", "gpu", "price", "quantity", "scope",
            "tier", "term", "term_months", "status", "buyer", "region"]
    with open(os.path.join(args.out, "market.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def panel_events(rows, args, start):
    """Structure for methodology v2 on top of the random market (its own
    random stream, so the rows above stay as they were): a provider that
    enters mid-month far below the market and leaves again, one that
    leaves and comes back after the rebalance, two providers relisting
    their H100 on-demand SKUs under new ids, an A100 spot catalogue
    replaced while its trades pause (carried, then re-anchored), and an
    H100 spot feed outage on the first of a month (the rebalance waits)."""
    rnd = random.Random(args.seed * 7919 + 1)
    out = []
    for r in rows:
        k = r["_k"]
        if r["provider"] == "nebius" and 18 <= k <= 36:
            continue                                   # leaves, returns after the 1st
        if r["gpu"] == "A100-80GB" and r["term"] == "spot" and 20 <= k <= 29 \
                and r["kind"] == "trade":
            continue                                   # trades pause ...
        if r["gpu"] == "A100-80GB" and r["term"] == "spot" and k >= 20 \
                and r["kind"] == "offer":
            r = dict(r, id=r["id"] + "-n")             # ... while the catalogue is replaced
        if r["gpu"] == "H100" and r["term"] == "on-demand" and k >= 22 \
                and r["provider"] in ("coreweave", "crusoe") and r["kind"] == "offer":
            r = dict(r, id=r["id"] + "-r2")            # relisted under new ids
        utc_k = k - 1 if r["observed_at"].endswith("+02:00") else k
        if r["gpu"] == "H100" and r["term"] == "spot" and utc_k == 31:
            continue                                   # feed outage on the 1st (UTC)
        out.append(r)
    for k in range(12, min(34, args.days)):            # newco: enters at ~55 % of the market
        day = start + dt.timedelta(days=k)
        for term, tf in (("on-demand", 1.0), ("spot", 0.6)):
            for j in range(2):
                price = 1.2 * tf * rnd.uniform(0.95, 1.05)
                out.append(dict(kind="offer", id=f"newco-{term}-{j}",
                                observed_at=f"{day}T{rnd.randint(0, 23):02d}:15:00Z",
                                provider="newco", gpu="H100", price=f"{price:.6f}",
                                quantity="", scope="vm", tier="gold", term=term,
                                term_months="", status="", buyer="", region="us-east"))
            if rnd.random() < 0.5:
                out.append(dict(kind="trade", id=f"N{k}-{term}",
                                observed_at=f"{day}T{rnd.randint(0, 23):02d}:45:00Z",
                                provider="newco", gpu="H100", price=f"{1.1 * tf:.6f}",
                                quantity=str(rnd.randint(100, 900)), scope="vm",
                                tier="gold", term=term, term_months="", status="",
                                buyer="acme", region="us-east"))
    return out + v2_rules(args, start)


def offer(day, ident, prov, gpu, price, term="on-demand", hh=9):
    return dict(kind="offer", id=ident, observed_at=f"{day}T{hh:02d}:20:00Z", provider=prov,
                gpu=gpu, price=f"{price:.6f}", quantity="", scope="vm", tier="gold",
                term=term, term_months="", status="", buyer="", region="us-east")


def trade(day, ident, prov, gpu, price, qty, term="on-demand", hh=10):
    return dict(kind="trade", id=ident, observed_at=f"{day}T{hh:02d}:40:00Z", provider=prov,
                gpu=gpu, price=f"{price:.6f}", quantity=str(qty), scope="vm", tier="gold",
                term=term, term_months="", status="", buyer="acme", region="us-east")


def v2_rules(args, start):
    """Rows that exercise §10.3-§10.4's rules (their own random stream):
    - x10co lists two H100 on-demand offers, one printed x10 on some days
      (the screen needs three prices; the matched sample leaves it out);
    - L40S is traded by four providers in turn (all four, then three, then
      two for three days, in a 15-day cycle; volumes 400 each, so two
      traders and a carried one would reach 1,000 GPU-hours): carried
      trade prices enter S but never make the relative qualify, presence
      for panel_change lasts trade_carry_days, and a grade with little
      carry suspends and starts again on an anchor window reaching back
      before the suspension; one trade printed x10;
    - lateco enters H100 on-demand (offers and trades at 1.4x the market)
      four days before April 1, inside the rebalance's anchor window."""
    rnd = random.Random(args.seed * 104729 + 3)
    out = []
    for k in range(args.days):
        day = start + dt.timedelta(days=k)
        drift = 1 + 0.1 * ((k % 17) - 8) / 8
        if 2 <= k:
            for j in range(2):
                price = 2.1 * drift * rnd.uniform(0.97, 1.03)
                if j == 1 and k % 9 == 0:
                    price *= 10
                out.append(offer(day, f"x10co-{j}", "x10co", "H100", price, hh=8 + j))
        c = k % 15
        traders = {0: 4, 1: 4, 2: 4, 3: 4, 4: 3, 5: 3, 6: 3, 7: 3, 8: 2, 9: 2, 10: 2}.get(c, 4)
        first = k % 4
        for i in range(traders):
            p = (first + i) % 4
            price = 1.0 * (1 + 0.01 * k) * (0.9, 1.0, 1.1, 1.3)[p] * rnd.uniform(0.99, 1.01)
            if k == 20 and p == 1:
                price *= 10
            out.append(trade(day, f"L{k}-{p}", f"rot{p + 1}", "L40S", price, 400))
        if 27 <= k <= 38:
            for j in range(2):
                out.append(offer(day, f"lateco-{j}", "lateco", "H100",
                                 1.4 * 2.1 * drift * rnd.uniform(0.98, 1.02), hh=11))
            out.append(trade(day, f"LC{k}", "lateco", "H100", 1.4 * 2.0 * drift, 500, hh=12))
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "gen":
        ap = argparse.ArgumentParser(prog="ref_index.py gen")
        ap.add_argument("--days", type=int, default=90)
        ap.add_argument("--seed", type=int, default=7)
        ap.add_argument("--start", default="2024-03-01")
        ap.add_argument("--out", required=True)
        gen(ap.parse_args(sys.argv[2:]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--grades", required=True)
    ap.add_argument("--from", dest="d_from", required=True)
    ap.add_argument("--to", dest="d_to", required=True)
    ap.add_argument("--as-of", dest="as_of")
    ap.add_argument("--grade")
    ap.add_argument("--stats", help="write how often each v2 rule decided something "
                    "(name count lines) to this file")
    ap.add_argument("--no-manip", dest="manip", action="store_false",
                    help="leave out the manipulation figures (§11): the columns up to note")
    a = ap.parse_args()
    with open(a.grades) as f:
        grades = [Grade(g) for g in json.load(f)["grades"]]
    if a.grade:
        grades = [g for g in grades if g.id == a.grade]
    as_of = 2 ** 62
    if a.as_of:
        t = dt.datetime.fromisoformat(a.as_of.replace("Z", "+00:00"))
        if t.tzinfo is None:
            t = t.replace(tzinfo=dt.timezone.utc)
        as_of = int(t.timestamp())
    stats = {}
    emit(build(a.db, grades, day_of(a.d_from), day_of(a.d_to), as_of, stats, a.manip),
         sys.stdout, a.manip)
    if a.stats:
        with open(a.stats, "w") as f:
            for k in sorted(stats):
                f.write(f"{k} {stats[k]}\n")


if __name__ == "__main__":
    main()
