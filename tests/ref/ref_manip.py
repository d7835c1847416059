"""tests/ref/ref_manip.py -- the manipulation figures of METHODOLOGY.md §11 for
the reference implementation tests/ref/ref_index.py, written from the text
alone (not from index/manip.c).  Exact: prices integer micro-USD, volumes
integer micro-GPU-hours, values fractions.Fraction in USD.

ref_index.py hands each grade-day here with what the method needs to
evaluate the day again with other raw values (the day's adjustment and
the carry state before it; for v2 the chain before it, through
ref_v2.Chain.peek, and the anchor window's other estimates):

  loo(...)   §11.1: each provider group with an eligible observation left
             out in turn; the day fixed again without it (screened afresh)
             and evaluated from the same state.  Returns the largest move,
             or None when every removal leaves no value.
  costs(...) §11.2: one new provider group adding trades of x GPU-hours,
             or one offer, at a price beyond every other.  Returns the
             smallest x (in 0.01 GPU-hour) that moves the value one tick
             and 1 %, and whether one offer does.

Readings of the text taken here:
  M1 "beyond every other price" is 1,000,000 USD per GPU-hour above and
     0.000001 USD below (§11.2 states both).  A price further out changes
     a published figure only through a median's exact half, where the
     participant's price is averaged in; that it then moves the value far
     is what "best placed" means.
  M2 "the smallest x for which the value differs ... in either direction"
     is taken literally: x moves the value when the price above all or
     the price below all does, by any amount (one tick) or by at least
     1 % of the published value (|new - old| x 100 >= old, new != old).
     The predicate is monotone in x from the volume at which the
     participant's trades make the trades level qualify (§11.2: shares
     min(s, lambda v) -- more x never raises another provider's share --
     and the day's value is the trades value from there on), so its
     smallest x is found by bisection between that volume and the one at
     which x / (V + x) reaches s (beyond it nothing changes).  Below that
     volume the trades level does not qualify and the value is the day's.
  M3 v2, costs: only on an anchor day (§11.2), where the value is the
     median of the window's other estimates (as the day computed them)
     and the day's own cross-section with the participant; a cross-section
     that is not fixed (trades or offers) gives no value.
  M4 v2, leave one out: the group's constituents leave the day (its
     cross-section is fixed again without them) and the matched sample
     and the anchor window's changes are computed without the group; the
     window's earlier cross-sections are as published.
"""
from fractions import Fraction as Fr

P_HIGH = 10 ** 12   # micro-USD: 1,000,000 USD per GPU-hour (M1)
P_LOW = 1           # micro-USD: 0.000001 USD per GPU-hour
NEW = ("new participant",)   # its group: no observation's group is a tuple
STEP = 10 ** 4      # 0.01 GPU-hour in micro-GPU-hours


def moved(v, v0, target):
    """M2: v differs from v0 (target 0) or by at least 1 % of v0 (1)."""
    if v is None or v == v0:
        return False
    return target == 0 or abs(v - v0) * 100 >= v0


def loo(day_value, groups, value_without):
    """§11.1: the largest |value without g - day_value| over the groups
    whose absence leaves a value; None when none does."""
    best = None
    for g in groups:
        v = value_without(g)
        if v is None:
            continue
        m = abs(v - day_value)
        if best is None or m > best:
            best = m
    return best


def ceil_div(a, b):
    return -((-a) // b)


def costs(P, r, v0, value_of, capped_shares, weighted_median, median):
    """§11.2 for one grade-day: ([tick, 1 %] in units of 0.01 GPU-hour or
    None, [tick, 1 %] offers: 1 or None).  r is ref_index.raw_values()'s
    result; value_of(t_raw, o_raw) evaluates the day (levels, adjustment,
    carry; for v2 the anchor value) with the given raw values (micro-USD,
    None when a level does not qualify)."""
    min_vol = P["min_trade_volume"] * 10 ** 6
    vol = r["vol"]
    V = sum(vol.values())
    n = len(vol)

    def trades_value(price, x_e2):
        v = dict(vol)
        v[NEW] = x_e2 * STEP
        t_raw = r["trades_raw"]
        if sum(v.values()) >= min_vol and len(v) >= P["min_providers"]:
            share = capped_shares(v, P["cap_floor"])
            pairs = [(o["price"], share[o["grp"]] * Fr(o["qty"], vol[o["grp"]]))
                     for o in r["st"]]
            t_raw = weighted_median(pairs + [(price, share[NEW])])
        return value_of(t_raw, r["offers_raw"])

    out_t = [None, None]
    if n + 1 >= P["min_providers"]:
        lo = max(1, ceil_div(min_vol - V, STEP))
        s = max(P["cap_floor"], Fr(1, n + 1))
        hi = lo
        if s < 1:   # x / (V + x) >= s from x >= s V / (1 - s)
            hi = max(lo, ceil_div(s * V / (1 - s), STEP))
        for target in (0, 1):
            def pred(x):
                return (moved(trades_value(P_HIGH, x), v0, target)
                        or moved(trades_value(P_LOW, x), v0, target))
            if not pred(hi):
                continue
            a, b = lo - 1, hi   # pred(a) false (nothing changes below lo), pred(b) true
            while b - a > 1:
                mid = (a + b) // 2
                if pred(mid):
                    b = mid
                else:
                    a = mid
            out_t[target] = b

    def offers_value(price):
        by = dict(r["ogrp"])
        by[NEW] = [price]
        o_raw = r["offers_raw"]
        if len(by) >= P["min_providers"]:
            o_raw = median([median(x) for x in by.values()])
        return value_of(r["trades_raw"], o_raw)

    up, down = offers_value(P_HIGH), offers_value(P_LOW)
    out_o = [1 if moved(up, v0, t) or moved(down, v0, t) else None for t in (0, 1)]
    return out_t, out_o
