#!/usr/bin/python3
# tests/ref/settle_business.py -- independent reference (exact fractions)
# for the settlement of a contract on business days ("fsp_days":
# "business", issue 26 item 6) pinned in tests/test_settlement.c.
#
# The series: every day of May and June 2025 built; value (in 0.0001 USD)
# on day-of-month d: 24000 + 37 d on a weekday, 30000 + d on a Saturday or
# Sunday (so calendar and business averages part); 2025-06-11 (a
# Wednesday) suspended; May: 23500 + 5 d every day, weekends too.
# The June contract (listing 2025-05-01), holiday 2025-06-19 (its value
# is left out on business days), tick 0.01 and 0.0001.
# Run: /usr/bin/python3 tests/ref/settle_business.py
from datetime import date, timedelta
from fractions import Fraction


def half_up(x, tick):
    q = x / tick
    n = q.numerator // q.denominator
    if q - n >= Fraction(1, 2):
        n += 1
    return n  # ticks


def value(d):
    if d.month == 5:
        return 23500 + 5 * d.day
    if d == date(2025, 6, 11):
        return None
    if d.weekday() >= 5:
        return 30000 + d.day
    return 24000 + 37 * d.day


days = [date(2025, 5, 1) + timedelta(i) for i in range(61)]
HOL = {date(2025, 6, 19)}


def settle(business, tick, holidays):
    def is_day(d):
        return not business or (d.weekday() < 5 and d not in holidays)
    june = [d for d in days if d.month == 6 and is_day(d)]
    rows = []
    L = None
    s = Fraction(0)
    k = 0
    for d in days:
        if not is_day(d):
            continue
        v = value(d)
        if v is not None:
            L = Fraction(v, 10000)
            if d.month == 6:
                s += L
                k += 1
        if L is None:
            continue
        if d.month == 5:
            p = L
        else:
            r = sum(1 for x in june if x > d)
            p = (s + r * L) / (k + r) if k + r else L
        rows.append((d.isoformat(), half_up(p, tick)))
    fsp = half_up(s / k, tick)
    return rows, fsp, k, s / k


for business, holidays in ((False, set()), (True, set()), (True, HOL)):
    for tick in (Fraction(1, 100), Fraction(1, 10000)):
        rows, fsp, k, mean = settle(business, tick, holidays)
        name = "business" if business else "calendar"
        if holidays:
            name += " less 2025-06-19"
        print(f"{name} tick {tick}: {k} values, mean {float(mean):.9f}, FSP {fsp} ticks,"
              f" {len(rows)} daily rows")
        if tick == Fraction(1, 100) and business and holidays:
            print("  june dailies:", [p for d, p in rows if d >= "2025-06-01"])
            print("  may dailies (first, last, n):", rows[0], rows[len([r for r in rows if r[0] < '2025-06'])-1],
                  len([r for r in rows if r[0] < "2025-06"]))
