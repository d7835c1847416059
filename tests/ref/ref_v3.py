"""tests/ref/ref_v3.py -- methodology v3 (METHODOLOGY.md §13) written again
from the text, not from index/v3*.c: the panel's discipline, the value
(v1's statistics over the panel's observations, tests/ref/ref_index.py's
functions), leave-one-member-out, the price index and the composition
gaps.  Used by ref_index.py for the grades whose method is v3.

Arithmetic: every statistic in exact fractions; ln and exp in decimal
arithmetic at 60 digits (Python's decimal module computes them correctly
rounded), then rounded half away from zero at the published precision,
as §13.5 defines them.
"""
import datetime as dt
from decimal import Decimal, getcontext, ROUND_HALF_UP
from fractions import Fraction as Fr

getcontext().prec = 60
EPOCH = dt.date(1970, 1, 1)
T12 = 10 ** 12


def rnd_away(x):
    """A Fraction or Decimal rounded half away from zero to an integer."""
    if isinstance(x, Decimal):
        q = abs(x).to_integral_value(rounding=ROUND_HALF_UP)
        return int(q) if x >= 0 else -int(q)
    n = (abs(x.numerator) * 2 + x.denominator) // (2 * x.denominator)
    return n if x >= 0 else -n


def ln_e12(x):
    """ln x (x >= 1 an integer) in 1e-12, half away from zero."""
    if x <= 1:
        return 0
    return rnd_away(Decimal(x).ln() * T12)


def exp_scaled(l_e12, scale):
    return rnd_away(Decimal(scale) * (Decimal(l_e12) / Decimal(T12)).exp())


def fmt_signed(v, digits):
    if v is None:
        return ""
    s = "-" if v < 0 else ""
    v = abs(v)
    return f"{s}{v // 10 ** digits}.{v % 10 ** digits:0{digits}d}"


def first_of_month(d):
    x = EPOCH + dt.timedelta(days=d)
    return (x.replace(day=1) - EPOCH).days


class Grade3:
    """The state of one v3 grade across days (§13.2-§13.6)."""

    def __init__(self, G, ri):
        self.G, self.ri = G, ri
        P = G.p
        self.A, self.K = int(P["admission_days"]), int(P["absence_days"])
        self.groups = {}       # name -> dict(member, streak, absent, last_seen, o, t)
        self.items = {}        # (kind, key) -> (group, price, day)
        self.raws = {}         # day -> {"trades_raw", "offers_raw"} of the panel
        self.prev_value, self.carry = None, 0
        self.last_day = None
        self.index_on, self.log = False, 0
        self.value_last, self.index_last_on = None, False
        self.month = None      # (day, value, log or None)

    # -- the fix: v1's statistics over the panel's observations --------------
    def stats(self, fix_t, fix_o, leave_out=None):
        """fix_t / fix_o: (group, price, qty, kept) with kept False for a
        screen exclusion.  Returns the raw values and the counts."""
        P, ri = self.G.p, self.ri
        t = [x for x in fix_t if x[0] != leave_out]
        o = [x for x in fix_o if x[0] != leave_out]
        kt = [x for x in t if x[3]]
        ko = [x for x in o if x[3]]
        vol = {}
        for g, p, q, _ in kt:
            vol[g] = vol.get(g, 0) + q
        t_raw = None
        if sum(vol.values()) >= P["min_trade_volume"] * 10 ** 6 and sum(vol.values()) > 0 \
                and len(vol) >= P["min_providers"]:
            share = ri.capped_shares(vol, P["cap_floor"])
            t_raw = ri.weighted_median([(p, share[g] * Fr(q, vol[g])) for g, p, q, _ in kt])
        by = {}
        for g, p, _, _ in ko:
            by.setdefault(g, []).append(p)
        o_raw = ri.median([ri.median(v) for v in by.values()]) \
            if len(by) >= P["min_providers"] else None
        return dict(t_raw=t_raw, o_raw=o_raw, t=t, o=o, kt=kt, ko=ko, vol=vol, by=by,
                    groups={x[0] for x in t + o})

    def evaluate(self, d, st):
        P, ri = self.G.p, self.ri
        adj = self.adjustment(d)
        return ri.evaluate(P, st["t_raw"], st["o_raw"], adj, self.prev_value, self.carry), adj

    def adjustment(self, d):
        P, ri = self.G.p, self.ri
        return ri.adjustment(P, self.raws, d)

    # -- a day -------------------------------------------------------------
    def day(self, d, obs, want):
        G, P, ri = self.G, self.G.p, self.ri
        A, K = self.A, self.K
        offers = [o for o in obs if o["kind"] == "offer"]
        trades = [o for o in obs if o["kind"] == "trade" and o["status"] == "ok"]
        kept_o = mark(offers, P["error_factor"], ri)
        kept_t = mark(trades, P["error_factor"], ri)
        present = {o["grp"] for o in offers + trades}
        # forget groups neither members nor present the day before (§13.2)
        self.groups = {k: v for k, v in self.groups.items() if v["member"] or v["streak"] > 0}
        for g in present:
            self.groups.setdefault(g, dict(member=False, streak=0, absent=0, since=None,
                                           last_seen=None, o=[], t=[]))
        role, joined = {}, set()
        for g in sorted(self.groups):
            x = self.groups[g]
            if not x["member"] and x["streak"] >= A:
                x.update(member=True, since=d, absent=0)
                joined.add(g)
            if x["member"]:
                if g in present:
                    role[g], x["absent"] = "member", 0
                elif x["absent"] + 1 <= K:
                    role[g] = "imputed"
                    x["absent"] += 1
                else:
                    role[g] = "left"
                    x["absent"] += 1
                    x["member"] = False
            elif g in present:
                role[g] = "candidate"
            x["streak"] = x["streak"] + 1 if g in present else 0
        # the fix
        fix_t = [(o["grp"], o["price"], o["qty"], k) for o, k in kept_t if role.get(o["grp"]) == "member"]
        fix_o = [(o["grp"], o["price"], 0, k) for o, k in kept_o if role.get(o["grp"]) == "member"]
        # imputed members complete a panel with a member present; alone
        # they are no fix (§13.2 item 3)
        unobserved = 0 if "member" in role.values() else \
            sum(1 for r in role.values() if r == "imputed")
        for g, r in role.items():
            if r == "imputed" and not unobserved:
                fix_t += [(g, p, q, True) for p, q in self.groups[g]["t"]]
                fix_o += [(g, p, 0, True) for p in self.groups[g]["o"]]
        st = self.stats(fix_t, fix_o)
        (level, value, carry), adj = self.evaluate(d, st)
        before = (self.prev_value, self.carry)
        members = sorted(g for g, r in role.items() if r in ("member", "imputed"))
        # leave one member out (§11.1 over the panel)
        loo = None
        if level in ("trades", "offers") and want:
            for g in members:
                s2 = self.stats(fix_t, fix_o, leave_out=g)
                v = ri.evaluate(P, s2["t_raw"], s2["o_raw"], adj, *before)[1]
                if v is None:
                    continue
                mv = abs(v - value)
                if loo is None or mv > loo:
                    loo = mv
        self.raws[d] = {"trades_raw": st["t_raw"], "offers_raw": st["o_raw"]}
        self.prev_value, self.carry = value, carry
        # the price index (§13.5)
        idx = self.index_step(d, offers, trades, kept_o, kept_t, role, level)
        # the composition gaps (§13.6)
        v_e4 = None if value is None else int(value * 10000)
        vp = self.value_last if self.last_day == d - 1 else None
        gap = None
        if idx["change"] is not None and v_e4 and vp:
            gap = rnd_away((Fr(v_e4) * T12 - Fr(idx["change"]) * vp) / (Fr(vp) * 10 ** 6))
        base = first_of_month(d) - 1
        if self.month is None or self.month[0] != base:
            y = self.last_day == d - 1 and d - 1 == base
            self.month = (base, self.value_last if y else None,
                          idx["log_prev"] if y and self.index_last_on else None)
        gap_m = None
        if idx["on"] and self.month[1] and self.month[2] is not None and v_e4:
            cm = exp_scaled(self.log - self.month[2], T12)
            gap_m = rnd_away((Fr(v_e4) * T12 - Fr(cm) * self.month[1]) / (Fr(self.month[1]) * 10 ** 6))
        # the groups' last observations
        for g in present:
            x = self.groups[g]
            x["last_seen"] = d
            x["o"] = [o["price"] for o, k in kept_o if k and o["grp"] == g]
            x["t"] = [(o["price"], o["qty"]) for o, k in kept_t if k and o["grp"] == g]
        self.last_day = d
        self.value_last = v_e4
        self.index_last_on = idx["on"]
        row = self.row(d, st, level, value, carry, adj, before, role, joined, loo, idx, gap,
                       gap_m, unobserved)
        return row

    def index_step(self, d, offers, trades, kept_o, kept_t, role, level):
        P, ri, K = self.G.p, self.ri, self.K
        seen = set()
        sums, matched = {}, {}
        today = {}
        for o, k in kept_o:
            if not k:
                continue
            key = ("o", o["key_hash"])
            today[key] = (o["grp"], o["price"])
            e = self.items.get(key)
            if e is None:
                continue
            seen.add(key)
            if d - e[2] > K + 1 or role.get(o["grp"]) != "member":
                continue
            sums[o["grp"]] = sums.get(o["grp"], 0) + ln_e12(o["price"]) - ln_e12(e[1])
            matched[o["grp"]] = matched.get(o["grp"], 0) + 1
        for g in {o["grp"] for o, k in kept_t if k}:
            px = [(o["price"], o["qty"]) for o, k in kept_t if k and o["grp"] == g and o["qty"] > 0]
            if not px:
                continue
            rep = ri.weighted_median(px) * 4
            assert rep.denominator == 1
            rep = int(rep)
            key = ("t", g)
            today[key] = (g, rep)
            e = self.items.get(key)
            if e is None:
                continue
            seen.add(key)
            if d - e[2] > K + 1 or role.get(g) != "member":
                continue
            sums[g] = sums.get(g, 0) + ln_e12(rep) - ln_e12(e[1])
            matched[g] = matched.get(g, 0) + 1
        carried = {}
        for key, (g, p, day) in self.items.items():
            if key not in seen and d - day <= K and role.get(g) in ("member", "imputed"):
                carried[g] = carried.get(g, 0) + 1
        lcap = ln_e12(int(P["error_factor"] * 10 ** 6)) - ln_e12(10 ** 6)
        rels = []
        # a day with no member present: no member counts (§13.5)
        observed = "member" in role.values()
        for g in sorted(role):
            if role[g] not in ("member", "imputed") or not observed:
                continue
            m = matched.get(g, 0) + carried.get(g, 0)
            if m == 0:
                continue
            r = rnd_away(Fr(sums.get(g, 0), m))
            rels.append(max(-lcap, min(lcap, r)))
        n = len(rels)
        delta = rnd_away(Fr(sum(rels), n)) if n >= P["min_providers"] and n > 0 else 0
        out = dict(on=False, change=None, log_prev=None, providers=n, index=None)
        if self.index_on:
            out.update(on=True, log_prev=self.log)
            self.log += delta
            out["change"] = exp_scaled(delta, T12)
        elif level in ("trades", "offers"):
            self.index_on, self.log = True, 0
            out["on"] = True
        if out["on"]:
            out["index"] = exp_scaled(self.log, 10 ** 8)
        # the items after the day
        items = {k: v for k, v in self.items.items() if d - v[2] <= K}
        for key, (g, p) in today.items():
            items[key] = (g, p, d)
        self.items = items
        return out

    def row(self, d, st, level, value, carry, adj, before, role, joined, loo, idx, gap, gap_m,
            unobserved):
        ri, P = self.ri, self.G.p
        kt, ko = st["kt"], st["ko"]
        row = {"date": ri.date_of(d), "grade": self.G.id, "adjustment": "", "p": [""] * 7,
               "top": "", "methodology": "v3", "vintage": "", "note": ""}
        tvol = sum(st["vol"].values())
        row["trade_volume"] = ri.fmt(Fr(tvol, 10 ** 6), 2)
        row["level"] = level
        n_cand = sum(1 for r in role.values() if r == "candidate")
        if level == "trades":
            row.update(n_obs=len(st["t"]), n_excluded=len(st["t"]) - len(kt),
                       n_providers=len(st["vol"]))
            row["p"] = ri.spread([p for _, p, _, _ in kt])
            row["top"] = ri.fmt(Fr(max(st["vol"].values()), tvol), 6)
        elif level == "offers":
            row.update(n_obs=len(st["o"]), n_excluded=len(st["o"]) - len(ko),
                       n_providers=len(st["by"]), adjustment=ri.fmt(adj, 6))
            row["p"] = ri.spread([p for _, p, _, _ in ko])
            top = max(len(v) for v in st["by"].values())
            row["top"] = ri.fmt(Fr(top, len(ko)), 6)
        else:
            n_all = len(st["t"]) + len(st["o"])
            row.update(n_obs=n_all, n_excluded=0, n_providers=len(st["groups"]))
            if unobserved:
                why = (f"no member of the panel present ({unobserved} imputed: imputed members "
                       f"alone are no fix)")
            elif n_all == 0:
                why = "no eligible observations of the panel"
            else:
                why = (f"panel: trades: {ri.fmt(Fr(tvol, 10 ** 6), 2)} GPU-hours from "
                       f"{len(st['vol'])} providers (need {ri.fmt(P['min_trade_volume'], 2)} from "
                       f"{int(P['min_providers'])}); offers: {len(st['by'])} providers after the "
                       f"screen (need {int(P['min_providers'])})")
            if n_cand:
                why += f"; {n_cand} provider{'' if n_cand == 1 else 's'} not yet in the panel"
            if level == "suspended":
                why += (f"; carried {before[1]} days already (max_carry_days)"
                        if before[0] is not None else "; no earlier value to carry")
            row["note"] = why
        row["value"] = "" if value is None else ri.fmt(value, 4)
        change = 1 if joined or any(r == "left" for r in role.values()) else 0
        row["v2"] = ["", "", "", "", "", str(change), "", ""]
        row["manip"] = ["" if loo is None else ri.fmt(loo, 4), "", "", "", ""]
        panel = sum(1 for r in role.values() if r in ("member", "imputed"))
        imp = sum(1 for r in role.values() if r == "imputed")
        row["v3"] = ["" if idx["index"] is None else ri.fmt(Fr(idx["index"], 10 ** 6), 6),
                     "" if idx["change"] is None else ri.fmt(Fr(idx["change"], T12), 12),
                     fmt_signed(gap, 6), fmt_signed(gap_m, 6), str(panel), str(imp),
                     str(n_cand), str(idx["providers"])]
        return row


def mark(obs, F, ri):
    """The per-provider screen of §3: [(observation, kept)]."""
    by = {}
    for o in obs:
        by.setdefault(o["grp"], []).append(o)
    out = []
    for lst in by.values():
        if len(lst) < 3:
            out += [(o, True) for o in lst]
            continue
        m = ri.median([o["price"] for o in lst])
        out += [(o, not (o["price"] > F * m or o["price"] < m / F)) for o in lst]
    return out
