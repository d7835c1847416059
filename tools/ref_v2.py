"""tools/ref_v2.py -- methodology v2 (METHODOLOGY.md §10) for the reference
implementation tools/ref_index.py, written from the text alone (not from
index/*.c).  Exact: prices are integer micro-USD, the chain integer
nano-USD, relatives and statistics fractions.Fraction.

ref_index.py computes a grade's v1 days (the cross-section, "xs") from the
first observation on and hands each day here, in date order, as a Day;
Chain.step() applies the rules of §10.4 in their order and returns the
fields of the v2 row (§10.6) that differ from the v1 row.

Readings of the text taken here, each a place where it could be read
otherwise (METHODOLOGY §10; gpuidx takes the same ones, checked by
tests/test_e2e_refindex*.c on markets where the readings differ):
  R1 "a chained value since the current anchor" (§10.4 rule 1): the
     anchor day itself counts, and so do carried days (the chain has a
     value on them).
  R2 each term xs_k x C / chain_k of the anchor's median is a value in
     nano-USD, rounded half-up: the text rounds only "the mean of the two
     middle values", so the terms are on the nano grid already.  C is the
     chain D would have had, round(chain x R) to the nano as rule 3 sets it.
  R3 trades "volumes on D total at least min_trade_volume" counts carried
     members at their carried volume (the volume of the day they last
     traded), as the statistic does.
  R4 panel_change compares the day's constituents (offer identities, and
     providers with screened trades that day -- not carried ones) with
     those of the previous fixed day F.  F belongs to a chain: with no
     chain (before a start, after a suspension, and on a start) it is 0.
  R5 the carried note's "N of the panel's providers priced on both days
     (need N')": N' is min_providers, the minimum of each sample (§10.3),
     so N is the larger of the two samples' provider counts (trade members;
     providers of the offer members) -- the union could print "4 ... (need
     3)" on a day that has no relative.
  R6 an anchor's panel is the day's constituents: providers with screened
     trades that day (not carried ones), offer identities.
Where gpuidx departs from the text it is a known disagreement
(tests/refindex_helpers.h), not a reading: panel_change 0 on a day without
eligible observations, notes cut to 159 bytes, partial builds that read too
few days back.
"""
from fractions import Fraction as Fr

E12 = Fr(1, 10 ** 12)


def rhu(x, step):
    """x to a multiple of step, half away from zero (x >= 0 here)."""
    q = x / step
    n = (abs(q.numerator) * 2 + q.denominator) // (2 * q.denominator)
    return (n if q >= 0 else -n) * Fr(step)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n % 2:
        return Fr(xs[n // 2])
    return (Fr(xs[n // 2 - 1]) + Fr(xs[n // 2])) / 2


def wquantile(pairs, q):
    """§10.6 / §4.1 at q: first distinct value whose cumulative weight
    reaches q of the total; exactly q -> mean with the next higher one."""
    w = {}
    for p, x in pairs:
        w[p] = w.get(p, 0) + x
    vals = sorted(w)
    target = q * sum(w.values())
    cum = Fr(0)
    for i, p in enumerate(vals):
        cum += w[p]
        if cum == target and i + 1 < len(vals):
            return (Fr(p) + Fr(vals[i + 1])) / 2
        if cum >= target:
            return Fr(p)
    return Fr(vals[-1])


def capped_shares(vol, cap_floor):
    """{member: volume} -> capped shares (§4.1 water-filling), exact."""
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


def trade_constituents(st, wmedian):
    """Screened trades -> {group: (representative price, volume)}: the
    volume-weighted median of the group's trades (no cap), their total."""
    by = {}
    for o in st:
        by.setdefault(o["grp"], []).append(o)
    return {g: (wmedian([(o["price"], o["qty"]) for o in lst]), sum(o["qty"] for o in lst))
            for g, lst in by.items()}


def offer_constituents(so):
    """Screened offers (latest snapshot of each key) -> {identity: (price, group)}."""
    return {o["okey"]: (Fr(o["price"]), o["grp"]) for o in so}


def band(xs_level, st, vol, cap_floor, ogrp, adj):
    """p10, p25, p50, p75, p90, min, max of the cross-section's
    constituents (§10.6), in micro-USD, unrounded; None when not fixed."""
    if xs_level == "trades":
        share = capped_shares(vol, cap_floor)
        pairs = [(Fr(o["price"]), share[o["grp"]] * Fr(o["qty"], vol[o["grp"]])) for o in st]
    elif xs_level == "offers":
        pairs = [(median(v) * adj, Fr(1)) for v in ogrp.values()]
    else:
        return None
    qs = [wquantile(pairs, Fr(q, 100)) for q in (10, 25, 50, 75, 90)]
    return qs + [min(p for p, _ in pairs), max(p for p, _ in pairs)]


def period_start(d, months, date_of, day_of):
    """First day of the rebalance period (periods of `months` months
    starting in January) holding day number d."""
    y, m, _ = map(int, date_of(d).split("-"))
    m0 = (m - 1) // months * months + 1
    return day_of(f"{y:04d}-{m0:02d}-01")


class Day:
    """What the chain needs of one grade-day."""
    __slots__ = ("d", "oc", "tc", "n_elig", "xs_level", "xs_nano", "xs_note")

    def __init__(self, d, oc, tc, n_elig, xs_level, xs_nano, xs_note):
        self.d, self.oc, self.tc, self.n_elig = d, oc, tc, n_elig
        self.xs_level, self.xs_nano, self.xs_note = xs_level, xs_nano, xs_note


class Chain:
    """The v2 state of one grade over consecutive days (§10.3-§10.4)."""

    def __init__(self, P, date_of, day_of):
        self.P = P
        self.date_of, self.day_of = date_of, day_of
        self.days = {}          # d -> Day
        self.chain_of = {}      # d -> chain (nano) on days with a chain
        self.chain = None       # current chain, nano-USD
        self.anchor = None      # day of the last anchor
        self.F = None           # previous fixed day
        self.carry = 0          # days carried in a row
        self.panel_o = {}       # identity -> base price
        self.panel_t = {}       # group -> base price

    # -- prices of panel members
    def trade_price(self, g, d):
        """(price, volume) of trade member g on d, or None (§10.3)."""
        for k in range(0, int(self.P["trade_carry_days"]) + 1):
            day = self.days.get(d - k)
            if day is not None and g in day.tc:
                return day.tc[g]
        return None

    def relative(self, D):
        """The day's relative: (R or None, kind, n_matched, n_matched_providers)."""
        P = self.P
        F = self.days[self.F]
        lo, hi = Fr(1, 10 ** 6), Fr(10 ** 6)

        def rel(p, base):
            return rhu(Fr(p) / base, E12)

        # trades
        tm = {}
        for g, base in self.panel_t.items():
            a, b = self.trade_price(g, D.d), self.trade_price(g, F.d)
            if a is None or b is None or a[1] <= 0 or b[1] <= 0:
                continue
            rD, rF = rel(a[0], base), rel(b[0], base)
            if not (lo <= rD <= hi and lo <= rF <= hi):
                continue
            tm[g] = (rD, a[1], rF, b[1])
        # offers
        om = {}
        for k, base in self.panel_o.items():
            if k not in D.oc or k not in F.oc:
                continue
            rD, rF = rel(D.oc[k][0], base), rel(F.oc[k][0], base)
            if not (lo <= rD <= hi and lo <= rF <= hi):
                continue
            om[k] = (rD, rF, D.oc[k][1])
        oprov = {v[2] for v in om.values()}
        if (len(tm) >= P["min_providers"]
                and sum(v[1] for v in tm.values()) >= P["min_trade_volume"] * 10 ** 6):
            def s_trades(i_rel, i_vol):
                share = capped_shares({g: v[i_vol] for g, v in tm.items()}, P["cap_floor"])
                return wquantile([(v[i_rel], share[g]) for g, v in tm.items()], Fr(1, 2))
            R = rhu(s_trades(0, 1) / s_trades(2, 3), E12)
            return R, "trades", len(tm), len(tm), max(len(oprov), len(tm))
        if len(oprov) >= P["min_providers"]:
            def s_offers(i):
                by = {}
                for v in om.values():
                    by.setdefault(v[2], []).append(v[i])
                return median([median(x) for x in by.values()])
            R = rhu(s_offers(0) / s_offers(1), E12)
            return R, "offers", len(om), len(oprov), max(len(oprov), len(tm))
        return None, None, len(om), len(oprov), max(len(oprov), len(tm))

    def set_anchor(self, D):
        self.anchor = D.d
        self.panel_o = {k: v[0] for k, v in D.oc.items()}
        self.panel_t = {g: v[0] for g, v in D.tc.items()}

    def rebalance_anchor(self, D, C):
        """§10.4 rule 1: the median of xs_k x C / chain_k over the last
        anchor_days days up to D with a fixed xs and a chain since the
        current anchor (D itself with xs_D); each term and the mean of an
        even count half-up to the nano (R2)."""
        vals = [Fr(D.xs_nano)]
        for k in range(D.d - int(self.P["anchor_days"]) + 1, D.d):
            day = self.days.get(k)
            if (k >= self.anchor and day is not None and day.xs_nano is not None
                    and k in self.chain_of):
                vals.append(rhu(Fr(day.xs_nano) * C / self.chain_of[k], 1))
        return int(rhu(median(vals), 1))

    def step(self, D):
        """Apply §10.4 to day D; returns the v2 fields as a dict."""
        P = self.P
        self.days[D.d] = D
        out = {"relative": None, "event": "", "splice": None, "note": "",
               "n_matched": 0, "n_matched_providers": 0, "panel_change": 0}
        fixed = D.xs_level in ("trades", "offers")
        R, kind, n_priced = None, None, 0
        if self.chain is not None:
            cons = lambda x: set(x.oc) | {("T", g) for g in x.tc}
            out["panel_change"] = int(cons(D) != cons(self.days[self.F]))
            R, kind, out["n_matched"], out["n_matched_providers"], n_priced = self.relative(D)
            out["relative"] = R
        months = int(P["rebalance_months"])
        if (self.chain is not None and fixed
                and self.anchor < period_start(D.d, months, self.date_of, self.day_of)):
            C = int(rhu(self.chain * R, 1)) if R is not None else self.chain
            a = self.rebalance_anchor(D, C)
            out.update(event="rebalance", splice=rhu(Fr(a, C), E12), level=D.xs_level)
            self.chain = a
            self.fix(D)
        elif self.chain is None and fixed:
            out.update(event="start", level=D.xs_level)
            self.chain = D.xs_nano
            self.fix(D)
        elif self.chain is not None and R is not None:
            self.chain = int(rhu(self.chain * R, 1))
            out["level"] = kind
            self.F = D.d
            self.carry = 0
        elif self.chain is not None and self.carry < P["max_carry_days"]:
            self.carry += 1
            out["level"] = "carried"
            out["note"] = ("no eligible observations to match" if D.n_elig == 0 else
                           f"no matched change: {n_priced} of the panel's "
                           f"providers priced on both days (need {int(P['min_providers'])})")
        elif self.chain is not None and fixed:
            out.update(event="reanchor", splice=rhu(Fr(D.xs_nano, self.chain), E12),
                       level=D.xs_level)
            self.chain = D.xs_nano
            self.fix(D)
        else:
            out["level"] = "suspended"
            if self.chain is not None:
                out["note"] = (f"carried {self.carry} days (max_carry_days) and the "
                               f"cross-section has no fix: {D.xs_note}")
            else:
                out["note"] = D.xs_note
            self.chain = None
            self.carry = 0
            self.panel_o, self.panel_t = {}, {}
        if self.chain is not None:
            self.chain_of[D.d] = self.chain
        out["chain"] = self.chain
        return out

    def fix(self, D):
        """An anchor on D: new panel and bases, D is the fixed day."""
        self.set_anchor(D)
        self.F = D.d
        self.carry = 0
