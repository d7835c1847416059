"""tests/ref/ref_v2.py -- methodology v2 (METHODOLOGY.md §10) for the reference
implementation tests/ref/ref_index.py, written from the text alone (not from
index/*.c).  Exact: prices are integer micro-USD, the chain integer
nano-USD, relatives and statistics fractions.Fraction.

ref_index.py computes a grade's v1 days (the cross-section, "xs") from the
first observation on and hands each day here, in date order, as a Day;
Chain.step() applies the rules of §10.4 in their order and returns the
fields of the v2 row (§10.6) that differ from the v1 row; Chain.peek()
what a day without one provider group would give (§11.1, for
tests/ref/ref_manip.py), leaving the state as it was.

Readings of the text taken here, each a place where it could be read
otherwise (METHODOLOGY §10; tests/test_e2e_refindex*.c check gpuidx on
markets where the readings differ):
  R1 "moved by no more than error_factor (3x) either way since F" (§10.3)
     compares the exact prices p_D and p_F (a trade member's representative
     prices, carried or not): p_D <= 3 p_F and 3 p_D >= p_F keep the member
     (a move of exactly 3x is kept, as a price exactly at a bound of §3).
  R2 the anchor value's est_k (§10.4) are nano values (rounded half-up),
     and the median of an even count is the mean of two of them, rounded
     half-up to the nano again.
  R3 the anchor's c_k (§10.4) takes the relatives of every constituent of
     D that is also a constituent on k -- the paragraph lists the sample
     explicitly; the exclusions of §10.3's matched sample (a move of more
     than error_factor since F, a relative outside [1e-6, 1e6]) are not
     part of it.  A constituent on k is §10.2's: an offer identity listed
     (screened) on k, a provider with screened trades on k (a trade price
     is carried only in §10.3's "price on a day", not into a constituent).
     The trades sample qualifies with at least min_providers matched
     providers whose volumes on k total at least min_trade_volume.
  R4 panel_change compares the constituents present on D with those of the
     previous fixed day F: offer identities of the day, and trading
     providers that traded (screened trades) on the day or within
     trade_carry_days days before it.  A day without eligible
     observations is 1 (F always has some).  With no chain before D
     (before and on a start, after a suspension) it is 0.
  R5 the carried note's "N of the panel's providers priced on both days
     (need N')": N' is min_providers, the minimum of each sample (§10.3),
     so N is the larger of the two samples' provider counts (trade members
     of M, carried ones included; providers of the offer members of M) --
     the union could print "4 ... (need 3)" on a day that has no relative.
     Members count as priced whether or not they traded on D, so a day
     whose trades relative fails for want of traders on D itself prints
     e.g. "3 ... (need 3)" (gpuidx prints the same).
  R6 an anchor's panel is the day's constituents: providers with screened
     trades that day (not carried ones), offer identities.
  R7 C of the splice, "the value the chain would have had on D", is
     round(chain x R) to the nano as rule 3 sets it.
Where gpuidx departs from the text, reported with minimal reproductions
(tests/test_e2e_refindex_v2.c, test_known_*): panel_change 0 on a day
without observations while the fixed day's trading providers are present
by trade carry (R4: the text says 1), and partial builds that read too few
days back when trade_carry_days > anchor_days - 1 (panel_change).
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
    """What the chain needs of one grade-day: offer constituents
    {identity: (price, group)}, trade constituents {group: (representative
    price, volume)}, the count of eligible observations, and the
    cross-section (level, value in nano-USD when fixed, note)."""
    __slots__ = ("d", "oc", "tc", "n_elig", "xs_level", "xs_nano", "xs_note")

    def __init__(self, d, oc, tc, n_elig, xs_level, xs_nano, xs_note):
        self.d, self.oc, self.tc, self.n_elig = d, oc, tc, n_elig
        self.xs_level, self.xs_nano, self.xs_note = xs_level, xs_nano, xs_note


def rel(p, base):
    """A relative to base, half-up to 1e-12 (§10.3)."""
    return rhu(Fr(p) / Fr(base), E12)


def s_trades(pairs, cap_floor):
    """§10.3 trades statistic: {member: (relative, volume)} -> the capped
    volume-weighted median (exact-half rule)."""
    share = capped_shares({g: v for g, (_, v) in pairs.items()}, cap_floor)
    return wquantile([(r, share[g]) for g, (r, _) in pairs.items()], Fr(1, 2))


def s_offers(pairs):
    """§10.3 offers statistic: [(relative, group)] -> the median over groups
    of the median of each group's relatives."""
    by = {}
    for r, g in pairs:
        by.setdefault(g, []).append(r)
    return median([median(x) for x in by.values()])


class Chain:
    """The v2 state of one grade over consecutive days (§10.3-§10.4)."""

    def __init__(self, P, date_of, day_of):
        self.P = P
        self.date_of, self.day_of = date_of, day_of
        self.days = {}          # d -> Day, every day stepped so far
        self.chain = None       # current chain, nano-USD
        self.anchor = None      # day of the last anchor
        self.F = None           # previous fixed day
        self.carry = 0          # days carried in a row
        self.panel_o = {}       # identity -> base price
        self.panel_t = {}       # group -> base price
        self.stats = {}         # how often each rule decided something (stat())
        self.exclude = None     # a group left out of the matching (peek)
        self.est = []           # the last anchor window's estimates, nano-USD

    def stat(self, name, n=1):
        """Counts the cases a rule of the text decided (ref_index.py
        --stats), so a test can tell that a market exercises it."""
        self.stats[name] = self.stats.get(name, 0) + n

    # -- prices of panel members
    def trade_price(self, g, d):
        """(price, volume, traded on d itself) of trade member g on d, or
        None: its representative price that day, else the last one within
        trade_carry_days days before (§10.3)."""
        for k in range(0, int(self.P["trade_carry_days"]) + 1):
            day = self.days.get(d - k)
            if day is not None and g in day.tc:
                return day.tc[g] + (k == 0,)
        return None

    def present(self, d):
        """Constituents present on d for panel_change (R4): offer
        identities, and providers that traded within trade_carry_days."""
        out = set(self.days[d].oc)
        for k in range(0, int(self.P["trade_carry_days"]) + 1):
            day = self.days.get(d - k)
            if day is not None:
                out |= {("T", g) for g in day.tc}
        return out

    def within_factor(self, a, b):
        """a moved from b by no more than error_factor either way (R1)."""
        f = self.P["error_factor"]
        return Fr(a) <= f * Fr(b) and f * Fr(a) >= Fr(b)

    def relative(self, D):
        """The day's relative (§10.3): (R or None, kind, n_matched,
        n_matched_providers, N of the carried note (R5))."""
        P = self.P
        F = self.days[self.F]
        lo, hi = Fr(1, 10 ** 6), Fr(10 ** 6)
        # trades: members priced on D and on F, volume > 0 on both, moved
        # by no more than error_factor, relatives in [1e-6, 1e6]
        tm = {}
        for g, base in self.panel_t.items():
            if g == self.exclude:
                continue
            a, b = self.trade_price(g, D.d), self.trade_price(g, F.d)
            if a is None or b is None or a[1] <= 0 or b[1] <= 0:
                continue
            if not self.within_factor(a[0], b[0]):
                self.stat("factor_left_out")
                continue
            rD, rF = rel(a[0], base), rel(b[0], base)
            if not (lo <= rD <= hi and lo <= rF <= hi):
                continue
            tm[g] = (rD, a[1], rF, b[1], a[2])
        # offers
        om = {}
        for k, base in self.panel_o.items():
            if k not in D.oc or k not in F.oc or D.oc[k][1] == self.exclude:
                continue
            if not self.within_factor(D.oc[k][0], F.oc[k][0]):
                self.stat("factor_left_out")
                continue
            rD, rF = rel(D.oc[k][0], base), rel(F.oc[k][0], base)
            if not (lo <= rD <= hi and lo <= rF <= hi):
                continue
            om[k] = (rD, rF, D.oc[k][1])
        oprov = {v[2] for v in om.values()}
        n_priced = max(len(oprov), len(tm))
        # the trades relative qualifies on the members that traded on D itself
        today = [v for v in tm.values() if v[4]]
        qualifies = (len(today) >= P["min_providers"]
                     and sum(v[1] for v in today) >= P["min_trade_volume"] * 10 ** 6)
        if (not qualifies and len(tm) >= P["min_providers"]
                and sum(v[1] for v in tm.values()) >= P["min_trade_volume"] * 10 ** 6):
            self.stat("carried_cannot_qualify")
        if qualifies and len(today) < len(tm):
            self.stat("carried_in_trades_relative")
        if qualifies:
            sD = s_trades({g: (v[0], v[1]) for g, v in tm.items()}, P["cap_floor"])
            sF = s_trades({g: (v[2], v[3]) for g, v in tm.items()}, P["cap_floor"])
            return rhu(sD / sF, E12), "trades", len(tm), len(tm), n_priced
        if len(oprov) >= P["min_providers"]:
            sD = s_offers([(v[0], v[2]) for v in om.values()])
            sF = s_offers([(v[1], v[2]) for v in om.values()])
            return rhu(sD / sF, E12), "offers", len(om), len(oprov), n_priced
        return None, None, len(om), len(oprov), n_priced

    def change_since(self, D, k):
        """c_k of §10.4: the change of D's constituents since day k, with
        D's prices as the base (R3); None when neither sample matches."""
        P = self.P
        K = self.days[k]
        t = {g: (rel(K.tc[g][0], D.tc[g][0]), K.tc[g][1]) for g in D.tc
             if g in K.tc and g != self.exclude}
        if set(D.oc) != set(K.oc) or set(D.tc) != set(K.tc):
            self.stat("anchor_constituents_changed")
        if (len(t) >= P["min_providers"]
                and sum(v for _, v in t.values()) >= P["min_trade_volume"] * 10 ** 6):
            self.stat("anchor_c_trades")
            return s_trades(t, P["cap_floor"])
        o = [(rel(K.oc[i][0], D.oc[i][0]), D.oc[i][1]) for i in D.oc
             if i in K.oc and D.oc[i][1] != self.exclude]
        if len({g for _, g in o}) >= P["min_providers"]:
            self.stat("anchor_c_offers")
            return s_offers(o)
        self.stat("anchor_day_left_out")
        return None

    def anchor_value(self, D):
        """§10.4: the median over the days k of the last anchor_days days up
        to D with a fixed cross-section of est_k = xs_k / c_k (half-up to the
        nano; est_D = xs_D), an even count's mean half-up to the nano (R2)."""
        vals = [Fr(D.xs_nano)]
        for k in range(D.d - int(self.P["anchor_days"]) + 1, D.d):
            day = self.days.get(k)
            if day is None or day.xs_nano is None:
                continue
            c = self.change_since(D, k)
            if c is not None:
                vals.append(rhu(Fr(day.xs_nano) / c, 1))
        self.est = vals[1:]     # the window's estimates (ref_manip.py, M3)
        a = int(rhu(median(vals), 1))
        if a != D.xs_nano:
            self.stat("anchor_not_xs")
        if self.chain is None and len(vals) > 1:
            self.stat("anchor_start_window")
        return a

    def step(self, D):
        """Apply §10.4 to day D; returns the v2 fields as a dict."""
        P = self.P
        self.days[D.d] = D
        out = {"relative": None, "event": "", "splice": None, "note": "",
               "n_matched": 0, "n_matched_providers": 0, "panel_change": 0}
        fixed = D.xs_level in ("trades", "offers")
        R, kind, n_priced = None, None, 0
        if self.chain is not None:
            out["panel_change"] = int(D.n_elig == 0
                                      or self.present(D.d) != self.present(self.F))
            today = lambda x: set(x.oc) | {("T", g) for g in x.tc}
            if out["panel_change"] != int(D.n_elig == 0
                                          or today(D) != today(self.days[self.F])):
                self.stat("panel_carried_presence")
            R, kind, out["n_matched"], out["n_matched_providers"], n_priced = self.relative(D)
            out["relative"] = R
        months = int(P["rebalance_months"])
        if (self.chain is not None and fixed
                and self.anchor < period_start(D.d, months, self.date_of, self.day_of)):
            C = int(rhu(self.chain * R, 1)) if R is not None else self.chain
            a = self.anchor_value(D)
            out.update(event="rebalance", splice=rhu(Fr(a, C), E12), level=D.xs_level)
            self.chain = a
            self.fix(D)
        elif self.chain is None and fixed:
            out.update(event="start", level=D.xs_level)
            self.chain = self.anchor_value(D)
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
            a = self.anchor_value(D)
            out.update(event="reanchor", splice=rhu(Fr(a, self.chain), E12),
                       level=D.xs_level)
            self.chain = a
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
        out["chain"] = self.chain
        if out["event"]:
            out["est"] = self.est
        return out

    def peek(self, D, exclude):
        """What step(D) would give with the constituents of group `exclude`
        also left out of the matched sample and the anchor window's changes
        (§11.1; D is the day without that group), the state left as it
        was."""
        keep = (self.days.get(D.d), self.chain, self.anchor, self.F, self.carry,
                self.panel_o, self.panel_t, dict(self.stats))
        self.exclude = exclude
        try:
            return self.step(D)
        finally:
            (old, self.chain, self.anchor, self.F, self.carry, self.panel_o, self.panel_t,
             self.stats) = keep
            self.exclude = None
            if old is None:
                del self.days[D.d]
            else:
                self.days[D.d] = old

    def fix(self, D):
        """An anchor on D: D's constituents are the panel, their prices the
        bases (R6), D is the fixed day."""
        self.anchor = D.d
        self.panel_o = {k: v[0] for k, v in D.oc.items()}
        self.panel_t = {g: v[0] for g, v in D.tc.items()}
        self.F = D.d
        self.carry = 0
