#!/usr/bin/python3
"""tests/ref/hedge_oos.py -- an independent reference, with statsmodels, for
the figures `gpuidx hedge analyze` and `hedge compare` print (issue 27):
h and R² of the changes regression, the walk-forward (out-of-sample)
effectiveness, the block-bootstrap interval of h and the Chow test at the
largest index move.

Reads the periods of an `analyze --json` output (period, rent, index: the
aligned series, not gpuidx's figures) and computes everything again from
METHODOLOGY.md "Hedge analyzer":

  changes    between adjacent calendar periods only (a gap breaks them)
  h, R²      statsmodels OLS of d(rent) on a constant and d(index)
  walk       for each change j from the 6th on, h_j = the OLS slope of the
             changes before j (0 when the index did not move there);
             1 - Var(d(rent) - h_j d(index)) / Var(d(rent)) over them
  bootstrap  moving blocks of L = floor(4 (n/100)^(2/9)) + 1 changes, 999
             resamples, starts drawn as GSL's gsl_rng_uniform_int(n - L + 1)
             from GSL's mt19937 seeded with 1 (written out again below, so
             the draws are the same), slopes by statsmodels OLS (a resample
             whose index never moves is left out), 2.5 % and 97.5 %
             quantiles (linear interpolation, as GSL's)
  chow       split at the largest |d(index)|: the changes before it and
             those from it on, F = ((S - S1 - S2)/2) / ((S1 + S2)/(n - 4)),
             p from scipy's F distribution (statsmodels' dependency)

Usage: /usr/bin/python3 tests/ref/hedge_oos.py ANALYZE.json  -> JSON on stdout
"""
import json
import math
import sys
from datetime import date, timedelta

import numpy as np
import statsmodels.api as sm
from scipy import stats


class MT19937:
    """GSL's gsl_rng_mt19937 (gsl/rng/mt.c): the 2002 seeding, a seed of 0
    taken as 4357, 32-bit outputs."""

    N, M = 624, 397

    def __init__(self, seed):
        if seed == 0:
            seed = 4357
        self.mt = [0] * self.N
        self.mt[0] = seed & 0xFFFFFFFF
        for i in range(1, self.N):
            prev = self.mt[i - 1]
            self.mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
        self.mti = self.N

    def get(self):
        if self.mti >= self.N:
            mt = self.mt
            for k in range(self.N):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % self.N] & 0x7FFFFFFF)
                mt[k] = mt[(k + self.M) % self.N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.mti = 0
        y = self.mt[self.mti]
        self.mti += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y

    def uniform_int(self, n):
        """gsl_rng_uniform_int: (get - min) / (range / n), redrawn while >= n."""
        scale = 0xFFFFFFFF // n
        while True:
            k = self.get() // scale
            if k < n:
                return k


def period_start(label, freq):
    if freq == "month":
        y, m = map(int, label.split("-"))
        return date(y, m, 1)
    if freq == "week":
        y, w = label.split("-W")
        return date.fromisocalendar(int(y), int(w), 1)
    return date.fromisoformat(label)


def next_start(d, freq):
    if freq == "month":
        return date(d.year + (d.month == 12), d.month % 12 + 1, 1)
    return d + timedelta(days=7 if freq == "week" else 1)


def changes(periods, freq):
    di, dr, at = [], [], []
    prev = None
    for p in periods:
        s = period_start(p["period"], freq)
        if prev is not None and s == next_start(prev[0], freq):
            di.append(p["index"] - prev[1])
            dr.append(p["rent"] - prev[2])
            at.append(p["period"])
        prev = (s, p["index"], p["rent"])
    return np.array(di), np.array(dr), at


def ols(x, y):
    """statsmodels OLS with a constant: (slope, ssr, r2); None when x is flat."""
    if len(x) < 3 or np.var(x) == 0:
        return None
    res = sm.OLS(y, sm.add_constant(x, has_constant="add")).fit()
    return res.params[1], res.ssr, res.rsquared


def main():
    a = json.load(open(sys.argv[1]))
    freq = a["freq"]
    di, dr, at = changes(a["periods"], freq)
    n = len(di)
    out = {"n_changes": n}
    fit = ols(di, dr)
    out["h"], out["r2"] = (fit[0], fit[2]) if fit else (None, None)
    # walk-forward
    e, r = [], []
    for j in range(6, n):
        f = ols(di[:j], dr[:j])
        h = f[0] if f else 0.0
        e.append(dr[j] - h * di[j])
        r.append(dr[j])
    out["walk_n"] = len(e)
    out["walk_he"] = (1 - np.var(e, ddof=1) / np.var(r, ddof=1)
                      if len(e) >= 2 and np.var(r) > 0 else None)
    # block bootstrap
    lag = math.floor(4 * (n / 100) ** (2 / 9) + 1e-12) if n else 0
    block = min(lag + 1, n) if n else 1
    out["block"] = lag + 1
    slopes = []
    if n >= 4:
        rng = MT19937(1)
        for _ in range(999):
            xs, ys = [], []
            while len(xs) < n:
                s = rng.uniform_int(n - block + 1)
                for t in range(block):
                    if len(xs) < n:
                        xs.append(di[s + t])
                        ys.append(dr[s + t])
            f = ols(np.array(xs), np.array(ys))
            if f:
                slopes.append(f[0])
    out["boot_used"] = len(slopes)
    out["boot_lo"], out["boot_hi"] = ((float(np.percentile(slopes, 2.5)),
                                       float(np.percentile(slopes, 97.5)))
                                      if len(slopes) >= 100 else (None, None))
    # Chow at the largest index move
    out["chow_f"] = out["chow_p"] = None
    if n and np.max(np.abs(di)) > 0:
        j = int(np.argmax(np.abs(di)))  # the first of the largest
        out["chow_period"] = at[j]
        f1, f2 = ols(di[:j], dr[:j]), ols(di[j:], dr[j:])
        if j >= 3 and n - j >= 3 and n >= 7 and f1 and f2 and fit:
            within = f1[1] + f2[1]
            between = max(fit[1] - within, 0.0)
            F = (between / 2) / (within / (n - 4))
            out["chow_f"], out["chow_p"] = F, float(stats.f.sf(F, 2, n - 4))
            out["chow_h_before"], out["chow_h_after"] = f1[0], f2[0]
    json.dump(out, sys.stdout, indent=1, default=float)
    print()


if __name__ == "__main__":
    main()
