#!/usr/bin/env python3
"""tests/ref/ref_curve.py -- the term curve (METHODOLOGY.md "Term curve")
written again from the methodology, independently of the C code.

    python3 tests/ref/ref_curve.py DIR/D/curve.json [more curve.json ...]

Recomputes every grade's curve of a published curve.json from its published
inputs and front: each input's restatement (ratio, restated price), the
screen, the points (median of the provider groups' medians, tolerance), the
fit (maximum smoothness relative to the constant-growth base, with its
tolerance bands found by an active set, or Hagan and West's monotone
convex), the convexity screen, and per tenor the forward, the term rate and
the status with its reason -- and compares each published number with its
own.  Exact rational arithmetic (fractions.Fraction) everywhere but the
base's growth rate, whose logarithm and exponentials are IEEE doubles as the
method documents; the fit's linear systems are then solved exactly.
Prints "DATE GRADE: ok" or the first difference per grade; exit status 1 when
any grade differs.

Also usable as a module: curve(front, error_factor, params, day, quotes) with
quotes as dicts of the inputs' columns returns (quotes, points, tenors, fit,
growth).
"""
import json
import math
import sys
from datetime import date
from decimal import Decimal
from fractions import Fraction as Fr

MONTH = Fr(487, 16)  # days in a curve month
TENORS = 36
E12 = 10 ** 12
PRE = {"above F x provider median", "below 1/F x provider median", "cancelled trade",
       "affiliate trade"}
ONLY_ON_DEMAND = ("a curve is drawn for on-demand grades only: term rents are not "
                  "interruptible (spot) and a reserved grade is itself a term")


def half_up(x):
    """Round a non-negative Fraction half-up to an integer (halves away from zero)."""
    if x < 0:
        return -half_up(-x)
    n = math.floor(x)
    return n + 1 if x - n >= Fr(1, 2) else n


def units(x, digits):
    return half_up(Fr(x) * 10 ** digits)


def fixed(v, digits):
    """v units of 10^-digits as text, as the publication writes it."""
    if v is None:
        return None
    s = "-" if v < 0 else ""
    v = abs(v)
    if digits == 0:
        return s + str(v)
    return s + str(v // 10 ** digits) + "." + str(v % 10 ** digits).rjust(digits, "0")


def dec(x):
    return None if x is None else Fr(Decimal(str(x)))


def day_of(s):
    return None if s is None else date.fromisoformat(s).toordinal() - date(1970, 1, 1).toordinal()


def median_int(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else half_up(Fr(v[n // 2 - 1] + v[n // 2], 2))


def months_text(m):
    if m == int(m):
        return str(int(m))
    return "%.2f" % float(m)


# ---- the fit ----------------------------------------------------------------------

def overlap(a, b, lo, hi):
    x, y = max(a, lo), min(b, hi)
    return y - x if y > x else 0


def node(k):
    return Fr(0) if k == 0 else Fr(2 * k - 1, 2)


def second_diff(k):
    hl, hh = node(k) - node(k - 1), node(k + 1) - node(k)
    s = 2 / (hl + hh)
    return (s / hl, -s * (1 / hl + 1 / hh), s / hh), (hl + hh) / 2


def solve(m, r):
    """Exact Gaussian elimination; None when singular."""
    n = len(r)
    m = [row[:] for row in m]
    r = r[:]
    for c in range(n):
        p = next((i for i in range(c, n) if m[i][c] != 0), None)
        if p is None:
            return None
        m[c], m[p] = m[p], m[c]
        r[c], r[p] = r[p], r[c]
        for i in range(c + 1, n):
            f = m[i][c] / m[c][c]
            if f:
                for j in range(c, n):
                    m[i][j] -= f * m[c][j]
                r[i] -= f * r[c]
    x = [Fr(0)] * n
    for i in range(n - 1, -1, -1):
        x[i] = (r[i] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def average(fwd, a, b):
    return sum(f * overlap(a, b, k, k + 1) for k, f in enumerate(fwd)) / (b - a)


def growth(v, pts):
    """The base's growth a month: weighted least squares of ln(value / v) on the
    middles (IEEE doubles, as documented), clamped to +-0.1."""
    num = den = 0.0
    if v <= 0:
        return 0.0
    for p in pts:
        if p["value"] <= 0 or p["tol"] <= 0:
            continue
        m = float((p["a"] + p["b"]) / 2)
        w = 1.0 / (float(p["tol"]) * float(p["tol"]))
        num += w * m * math.log(float(p["value"]) / float(v))
        den += w * m * m
    g = num / den if den > 0 else 0.0
    return min(0.1, max(-0.1, g))


def fit_smooth(v, pts, exact=False):
    """Returns (status, fwd, growth, sides, lambdas); status 0, -1 unsettled, or
    ('dep', i) when point i cannot be held with the others."""
    bmax = max(p["b"] for p in pts)
    N = max(1, min(TENORS, math.ceil(bmax - Fr(1, 10 ** 9))))
    g = growth(v, pts)
    if abs(g) < 1e-12:
        E = [Fr(v)] * N
    else:
        E = [Fr(v) * Fr((math.exp(g * (k + 1)) - math.exp(g * k)) / g) for k in range(N)]
    m = len(pts)
    A = [[overlap(p["a"], p["b"], k, k + 1) / (p["b"] - p["a"]) * E[k] for k in range(N)]
         for p in pts]
    Q = [[Fr(0)] * N for _ in range(N)]
    q = [Fr(0)] * N
    for k in range(1, N):
        c, w = second_diff(k)
        idx = (k - 2, k - 1, k)
        for x in range(3):
            if idx[x] < 0:
                continue
            for y in range(3):
                if idx[y] < 0:
                    q[idx[x]] += w * c[x] * c[y]
                else:
                    Q[idx[x]][idx[y]] += w * c[x] * c[y]

    def kkt(held, bounds):
        K = N + len(held)
        M = [[Fr(0)] * K for _ in range(K)]
        r = [Fr(0)] * K
        for i in range(N):
            for j in range(N):
                M[i][j] = 2 * Q[i][j]
            r[i] = -2 * q[i]
        for h, i in enumerate(held):
            for j in range(N):
                M[N + h][j] = A[i][j]
                M[j][N + h] = A[i][j]
            r[N + h] = bounds[h]
        return solve(M, r)

    side = [0] * m
    if exact:
        for j in range(m):
            x = kkt(list(range(j + 1)), [p["value"] for p in pts[:j + 1]])
            if x is None:
                return ("dep", j), None, g, None, None
        return 0, [x[k] * E[k] for k in range(N)], g, [0] * m, list(x[N:])
    last = -1
    for it in range(8 * m + 8):
        held = [i for i in range(m) if side[i]]
        lam = []
        if not held:
            fwd = E[:]
        else:
            x = kkt(held, [pts[i]["value"] + side[i] * pts[i]["tol"] for i in held])
            if x is None:
                return (("dep", last) if last >= 0 else -1), None, g, None, None
            fwd = [x[k] * E[k] for k in range(N)]
            lam = x[N:]
        drop, worst = -1, Fr(-1, 10 ** 10) * max(1, abs(v))
        for h, i in enumerate(held):
            s = side[i] * lam[h]
            if s < worst:
                worst, drop = s, i
        if drop >= 0:
            side[drop] = 0
            last = -1
            continue
        add, score, add_side = -1, None, 0
        for i in range(m):
            if side[i]:
                continue
            r = average(fwd, pts[i]["a"], pts[i]["b"]) - pts[i]["value"]
            viol = abs(r) - pts[i]["tol"]
            if viol <= Fr(1, 10 ** 9) * max(pts[i]["value"], Fr(1, 10 ** 6)):
                continue
            sc = viol / pts[i]["tol"] if pts[i]["tol"] > 0 else math.inf
            if add < 0 or sc > score:
                add, score, add_side = i, sc, 1 if r > 0 else -1
        if add < 0:
            lams = [Fr(0)] * m
            for h, i in enumerate(held):
                lams[i] = lam[h]
            return 0, fwd, g, side, lams
        side[add] = add_side
        last = add
    return -1, None, g, None, None


def roughness_max(v, fwd, frm):
    best, at = Fr(0), 0
    for k in range(max(frm, 1), len(fwd)):
        c, _ = second_diff(k)
        lo = v if k == 1 else fwd[k - 2]
        d = abs(c[0] * lo + c[1] * fwd[k - 1] + c[2] * fwd[k])
        if d > best:
            best, at = d, k
    return best, at


def hw_G(g0, g1, x):
    """The integral over [0, x] of Hagan and West's g (g(0) = g0, g(1) = g1)."""
    def h1(eta, x):
        if eta <= 0:
            return 0
        y = min(x, eta)
        return (eta ** 3 - (eta - y) ** 3) / (3 * eta * eta)

    def h2(eta, x):
        if eta >= 1 or x <= eta:
            return 0
        return (x - eta) ** 3 / (3 * (1 - eta) ** 2)

    if g0 == 0 and g1 == 0:
        return 0
    if (g0 < 0 and -g0 / 2 <= g1 <= -2 * g0) or (g0 > 0 and -g0 / 2 >= g1 >= -2 * g0):
        return g0 * (x - 2 * x * x + x ** 3) + g1 * (-x * x + x ** 3)
    if (g0 < 0 and g1 > -2 * g0) or (g0 > 0 and g1 < -2 * g0):
        eta = (g1 + 2 * g0) / (g1 - g0)
        return g0 * x + (g1 - g0) * h2(eta, x)
    if (g0 > 0 and 0 > g1 > -g0 / 2) or (g0 < 0 and 0 < g1 < -g0 / 2):
        eta = 3 * g1 / (g1 - g0)
        return g1 * x + (g0 - g1) * h1(eta, x)
    eta = g1 / (g1 + g0)
    A = -g0 * g1 / (g0 + g1)
    return A * x + (g0 - A) * h1(eta, x) + (g1 - A) * h2(eta, x)


def fit_monotone(v, pts):
    n = len(pts)
    t = [Fr(0)] + [p["b"] for p in pts]
    fd = [None]
    prev = Fr(0)
    for i in range(1, n + 1):
        cum = pts[i - 1]["value"] * t[i]
        fd.append((cum - prev) / (t[i] - t[i - 1]))
        prev = cum
    f = [Fr(v)] + [None] * n
    for i in range(1, n):
        x = ((t[i] - t[i - 1]) * fd[i + 1] + (t[i + 1] - t[i]) * fd[i]) / (t[i + 1] - t[i - 1])
        f[i] = min(max(x, 0), 2 * min(fd[i], fd[i + 1]))
    f[n] = min(max(fd[n] - (f[n - 1] - fd[n]) / 2, 0), 2 * fd[n])
    N = max(1, min(TENORS, math.ceil(t[n] - Fr(1, 10 ** 9))))
    fwd = []
    for k in range(N):
        s = Fr(0)
        for i in range(1, n + 1):
            lo, hi = max(Fr(k), t[i - 1]), min(Fr(k + 1), t[i])
            if hi <= lo:
                continue
            h = t[i] - t[i - 1]
            x1, x2 = (lo - t[i - 1]) / h, (hi - t[i - 1]) / h
            g0, g1 = f[i - 1] - fd[i], f[i] - fd[i]
            s += fd[i] * (hi - lo) + h * (hw_G(g0, g1, x2) - hw_G(g0, g1, x1))
        cov = overlap(Fr(0), t[n], k, k + 1)
        fwd.append(s / cov if cov > 0 else Fr(v))
    return fwd


# ---- the method -------------------------------------------------------------------

def curve(front, ef_e6, prm, day, quotes):
    """front: the fix in units of 1e-4 (None: none); quotes: dicts with the
    published input columns; returns (quotes, points, tenors, fit, growth)."""
    tol_e6 = [units(dec(x), 6) for x in prm["tolerance"]]
    conv_e6 = units(dec(prm["convexity"]), 6)
    conv_from = prm["convexity_from"]
    gap_f, gap_m, min_pts = prm["max_gap_factor"], prm["max_gap_months"], prm["min_points"]
    for q in quotes:
        q.update(role="used", reason=None, point=None, ratio=None, restated=None)
        if q["kind"] == "futures":
            q["start_days"] = q["first_day"] - day - 1
            q["a"] = Fr(max(q["start_days"], 0)) / MONTH
            q["b"] = Fr(q["last_day"] - day) / MONTH
        else:
            s = q["starts_on"]
            q["start_days"] = s - day - 1 if s is not None and s > day + 1 else 0
            q["a"] = Fr(q["start_days"]) / MONTH
            q["b"] = q["a"] + q["term_months"]

        def excl(why):
            q["role"], q["reason"] = "excluded", why

        if q.get("pre"):
            excl(q["pre"])
            continue
        if front is None:
            excl("no fix on the day")
            continue
        if q["kind"] == "futures":
            q["reference"] = front
            if q["first_day"] <= day:
                excl("in its delivery month (its price holds the month's realised values)")
                continue
            if q["price"] == front * 100:
                excl("equals the index value (the settlement rule's price before delivery, not a "
                     "market price)")
                continue
        elif q["reference"] is None or q["reference"] <= 0:
            excl("no %s of its provider group (%s) in the grade on the day to restate against"
                 % (q["kind"], q["group"]))
            continue
        if q["b"] > TENORS + Fr(1, 10 ** 9):
            excl("ends %s months ahead, after the curve's 36" % months_text(q["b"]))
            continue
        num = q["price"] if q["kind"] == "futures" else q["price"] * 4
        den = front * 100 if q["kind"] == "futures" else q["reference"]
        r = half_up(Fr(num * E12, den))
        q["ratio"] = r
        if r * 10 ** 6 > ef_e6 * E12 or r * ef_e6 < E12 * 10 ** 6:
            who = "the fix" if q["kind"] == "futures" else "its provider's own price in the grade"
            excl("%s times %s: outside 1/F..F (error_factor %s)"
                 % (fixed(half_up(Fr(r, 10 ** 10)), 2), who, fixed(half_up(Fr(ef_e6, 10 ** 4)), 2)))
            continue
        q["restated"] = q["price"] if q["kind"] == "futures" else half_up(Fr(front * 100 * r, E12))
    # points
    keys = []
    for q in quotes:
        if q["role"] != "used":
            continue
        key = (q["kind"] == "futures", q["start_days"],
               q["last_day"] - day if q["kind"] == "futures" else q["term_months"])
        if key not in keys:
            keys.append(key)
    pts = []
    for key in keys:
        fut, sd, e = key
        mine = [q for q in quotes if q["role"] == "used" and
                (q["kind"] == "futures", q["start_days"],
                 q["last_day"] - day if q["kind"] == "futures" else q["term_months"]) == key]
        pts.append(dict(futures=fut, start_days=sd, term_months=0 if fut else e,
                        end_days=e if fut else None, a=mine[0]["a"], b=mine[0]["b"], quotes=mine))
    pts.sort(key=lambda p: (p["a"], p["b"], p["futures"]))
    for k, p in enumerate(pts):
        groups = []
        for q in p["quotes"]:
            v = q["symbol"] if q["kind"] == "futures" else q["group"]
            q["point"] = k + 1
            if v not in groups:
                groups.append(v)
        meds = []
        for gname in groups:
            vals = [q["restated"] for q in p["quotes"]
                    if (q["symbol"] if q["kind"] == "futures" else q["group"]) == gname]
            meds.append(median_int(vals))
        p["groups"] = len(groups)
        p["value_micro"] = median_int(meds)
        p["tol_micro"] = half_up(Fr(p["value_micro"] * tol_e6[min(len(groups), 4) - 1], 10 ** 6))
        p["role"], p["reason"] = "used", None
        p["value"], p["tol"] = Fr(p["value_micro"], 10 ** 6), Fr(p["tol_micro"], 10 ** 6)
        p["active"], p["lam"] = 0, Fr(0)

    def exclude_point(p, why):
        p["role"], p["reason"] = "excluded", why
        for q in p["quotes"]:
            q["role"], q["reason"] = "excluded", why

    fit, g, fwd, nf = "none", 0.0, None, 0
    v = Fr(front, 10 ** 4) if front is not None else None
    while front is not None:
        used = [p for p in pts if p["role"] == "used"]
        for p in pts:
            p["active"], p["lam"] = 0, Fr(0)
        if not used:
            fit = "none"
            break
        if all(p["start_days"] == 0 and not p["futures"] for p in used) and len(used) < min_pts:
            fwd, fit, g = fit_monotone(v, used), "monotone-convex", 0.0
            nf = len(fwd)
            break
        st, fwd, g, side, lam = fit_smooth(v, used)
        fit = "maximum-smoothness"
        if st == -1:
            st, fwd, g, side, lam = fit_smooth(v, used, exact=True)
            fit = "exact"
        if isinstance(st, tuple):
            exclude_point(used[st[1]], "measures the same months as other inputs (monthly "
                                       "forwards cannot hold both)")
            continue
        nf = len(fwd)
        for i, p in enumerate(used):
            p["active"] = side[i] if side[i] != 2 else 0
        rough, at = roughness_max(v, fwd, conv_from)
        if rough * 10 ** 6 <= conv_e6 * v or len(used) < 2:
            break
        best, worst, wg = rough, None, 0
        for i in range(len(used)):
            sub = used[:i] + used[i + 1:]
            s2, f2, _, _, _ = fit_smooth(v, sub)
            if s2 == -1:
                s2, f2, _, _, _ = fit_smooth(v, sub, exact=True)
            if s2 != 0:
                continue
            r2, _ = roughness_max(v, f2, conv_from)
            if r2 >= rough - Fr(1, 10 ** 12) * v:
                continue
            gr = used[i]["groups"]
            if worst is None or gr < wg or (gr == wg and r2 < best - Fr(1, 10 ** 12) * v):
                best, worst, wg = r2, i, gr
        if worst is None:
            break
        exclude_point(used[worst], "convexity screen: with it the curve bends by %s %% of the fix "
                      "a month squared (tenor %d), without it %s %% (at most %s %%)"
                      % (fixed(units(rough / v * 100, 2), 2), at, fixed(units(best / v * 100, 2), 2),
                         fixed(half_up(Fr(conv_e6, 100)), 2)))
    for p in pts:
        p["fitted"] = p["residual"] = None
        if p["role"] == "used" and front is not None and nf:
            p["fitted"] = units(average(fwd, p["a"], p["b"]), 6)
            p["residual"] = p["fitted"] - p["value_micro"]
    # tenors
    used = [p for p in pts if p["role"] == "used"]
    bmax = max([p["b"] for p in used], default=Fr(0))
    npub = min(math.floor(bmax + Fr(1, 10 ** 9)), nf)
    tenors, bad, total = [], 0, Fr(0)
    for k in range(1, TENORS + 1):
        t = dict(status="withheld", term=None, forward=None, reason=None)
        tenors.append(t)
        if front is None:
            t["reason"] = "no fix on the day"
            continue
        if not used:
            t["reason"] = "no term input on the day"
            continue
        if k > npub:
            t["reason"] = "beyond the longest input (%s months)" % months_text(bmax)
            continue
        f = fwd[k - 1]
        total += f
        eps = Fr(1, 10 ** 9)
        fitted = any(k - 1 + eps < p["b"] <= k + eps for p in used)
        lo = max([p["b"] for p in used if p["b"] <= k - 1 + eps], default=Fr(0))
        hi = min([p["b"] for p in used if p["b"] > k + eps], default=None)
        reach = max(lo * gap_f, lo + gap_m)
        if not fitted and hi is not None and hi > reach + eps:
            t["reason"] = ("between inputs ending %s and %s months ahead: too far apart to "
                           "interpolate (at most %d times or %d months further)"
                           % (months_text(lo), months_text(hi), gap_f, gap_m))
            continue
        F = ef_e6 / Fr(10 ** 6)
        if f <= 0:
            t["reason"] = "negative forward (%s)" % fixed(units(f, 4), 4)
            bad = bad or k
            continue
        if f > F * v or f * F < v:
            t["reason"] = "implausible forward %s: %s error_factor times the fix" % (
                fixed(units(f, 4), 4), "more than" if f > F * v else "less than 1 /")
            bad = bad or k
            continue
        if bad:
            t["reason"] = "its term rate averages the withheld forward of tenor %d" % bad
            continue
        t["status"] = "fitted" if fitted else "interpolated"
        t["forward"], t["term"] = units(f, 4), units(total / k, 4)
    return quotes, pts, tenors, fit, g


# ---- reading curve.json and comparing ---------------------------------------------

def compare(pub, ref, where, diffs):
    if pub != ref and not diffs:
        diffs.append("%s: published %s, reference %s" % (where, pub, ref))


def check(path):
    doc = json.loads(open(path).read(), parse_float=Decimal, parse_int=int)
    day = day_of(doc["date"])
    prm = doc["parameters"]
    bad = 0
    for g in doc["grades"]:
        diffs = []
        front = None if g["front"] is None else units(dec(g["front"]), 4)
        ef = units(dec(g["error_factor"]), 6)
        cols = g["inputs"]["columns"]
        quotes = []
        for row in g["inputs"]["rows"]:
            r = dict(zip(cols, row))
            quotes.append(dict(kind=r["kind"], group=r["group"], symbol=None,
                               term_months=r["term_months"], starts_on=day_of(r["starts_on"]),
                               price=units(dec(r["price"]), 6),
                               reference=None if r["reference"] is None
                               else half_up(dec(r["reference"]) * 4 * 10 ** 6),
                               pre=r["reason"] if r["role"] == "excluded" and r["reason"] in PRE
                               else None, pub=r))
        fcols = g["futures"]["columns"]
        for row in g["futures"]["rows"]:
            r = dict(zip(fcols, row))
            quotes.append(dict(kind="futures", group="", symbol=r["symbol"],
                               first_day=day_of(r["first_day"]), last_day=day_of(r["last_day"]),
                               price=units(dec(r["price"]), 6), reference=None, pre=None, pub=r))
        quotes, pts, tenors, fit, growth_m = curve(front, ef, prm, day, quotes)
        if g["note"] == ONLY_ON_DEMAND:
            for t in tenors:
                t.update(status="withheld", term=None, forward=None, reason=ONLY_ON_DEMAND)
        for i, q in enumerate(quotes):
            p = q["pub"]
            compare(None if p["ratio"] is None else units(dec(p["ratio"]), 12), q["ratio"],
                    "input %d ratio" % (i + 1), diffs)
            compare(None if p["restated"] is None else units(dec(p["restated"]), 6), q["restated"],
                    "input %d restated" % (i + 1), diffs)
            compare(p["role"], q["role"], "input %d role" % (i + 1), diffs)
            compare(p["reason"], q["reason"], "input %d reason" % (i + 1), diffs)
            compare(p["point"], q["point"] if q["role"] == "used" else None,
                    "input %d point" % (i + 1), diffs)
        compare(len(g["points"]), len(pts), "points", diffs)
        for k, (pp, p) in enumerate(zip(g["points"], pts)):
            compare(pp["start_days"], p["start_days"], "point %d start_days" % (k + 1), diffs)
            compare(pp["groups"], p["groups"], "point %d groups" % (k + 1), diffs)
            compare(units(dec(pp["value"]), 6), p["value_micro"], "point %d value" % (k + 1), diffs)
            compare(units(dec(pp["tolerance"]), 6), p["tol_micro"],
                    "point %d tolerance" % (k + 1), diffs)
            compare(None if pp["fitted"] is None else units(dec(pp["fitted"]), 6), p["fitted"],
                    "point %d fitted" % (k + 1), diffs)
            compare(pp["role"], p["role"], "point %d role" % (k + 1), diffs)
            compare(pp["reason"], p["reason"], "point %d reason" % (k + 1), diffs)
        compare(g["fit"], fit, "fit", diffs)
        compare(units(dec(g["growth"]), 6), units(Fr(growth_m * 12), 6), "growth", diffs)
        for k, (tp, t) in enumerate(zip(g["tenors"], tenors)):
            compare(tp["status"], t["status"], "tenor %d status" % (k + 1), diffs)
            compare(tp["reason"], t["reason"], "tenor %d reason" % (k + 1), diffs)
            compare(None if tp["forward"] is None else units(dec(tp["forward"]), 4), t["forward"],
                    "tenor %d forward" % (k + 1), diffs)
            compare(None if tp["term_rate"] is None else units(dec(tp["term_rate"]), 4), t["term"],
                    "tenor %d term_rate" % (k + 1), diffs)
        print("%s %s: %s" % (doc["date"], g["grade"], "DIFFERS " + diffs[0] if diffs else "ok"))
        bad += bool(diffs)
    return bad


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(1 if sum(check(p) for p in sys.argv[1:]) else 0)
