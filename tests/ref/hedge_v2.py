#!/usr/bin/python3
# tests/ref/hedge_v2.py -- independent reference values (standard library
# only) for the hedge v2 statistics pinned in tests/test_hedge.c,
# tests/test_hedge_replay.c and tests/test_hedge_ratio.c: the 95 % intervals
# of h (Newey-West) and of the effectiveness (Fisher z), the budget errors
# of the by-hand replays (roll and strip) and the replay/analyze
# consistency on the §6 vector.
# Run: python3 tests/ref/hedge_v2.py
import math
from statistics import NormalDist, mean, stdev

Z = NormalDist().inv_cdf(0.975)

index = [2.95, 2.88, 2.80, 2.74, 2.70, 2.62, 2.55, 2.58, 2.49, 2.41, 2.38, 2.30]
rent = [2.71, 2.67, 2.58, 2.55, 2.49, 2.45, 2.36, 2.40, 2.33, 2.24, 2.23, 2.13]


def diff(x):
    return [b - a for a, b in zip(x, x[1:])]


def ols(x, y):
    mx, my = mean(x), mean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    b = sxy / sxx
    return my - b * mx, b


def corr(x, y):
    mx, my = mean(x), mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


def nw_se(x, y, lag):
    """Newey-West se of the slope, Bartlett weights, no small-sample correction."""
    n = len(x)
    a, b = ols(x, y)
    e = [yy - a - b * xx for xx, yy in zip(x, y)]
    sx, sx2 = sum(x), sum(v * v for v in x)
    det = n * sx2 - sx * sx
    i01, i11 = -sx / det, n / det
    s = [[0.0, 0.0], [0.0, 0.0]]
    for l in range(lag + 1):
        w = 1.0 if l == 0 else 1 - l / (lag + 1)
        g = [[0.0, 0.0], [0.0, 0.0]]
        for t in range(l, n):
            u = (e[t], e[t] * x[t])
            v = (e[t - l], e[t - l] * x[t - l])
            for i in range(2):
                for j in range(2):
                    g[i][j] += u[i] * v[j]
        for i in range(2):
            for j in range(2):
                s[i][j] += w * (g[i][j] if l == 0 else g[i][j] + g[j][i])
    var = i01 * i01 * s[0][0] + 2 * i01 * i11 * s[0][1] + i11 * i11 * s[1][1]
    return math.sqrt(var)


def fisher(rho, n):
    z, w = math.atanh(rho), Z / math.sqrt(n - 3)
    a, b = math.tanh(z - w), math.tanh(z + w)
    if a > 0:
        return a * a, b * b
    if b < 0:
        return b * b, a * a
    return 0.0, max(a * a, b * b)


def he(dx, dy, h):
    v = [b - h * a for a, b in zip(dx, dy)]
    return 1 - stdev(v) ** 2 / stdev(dy) ** 2


def errs(name, u, h):
    def st(e):
        return mean(e), stdev(e), math.sqrt(sum(v * v for v in e) / len(e))
    mu, su, ru = st(u)
    mh, sh, rh = st(h)
    print(f"{name}: unhedged mean {mu:.9f} sd {su:.9f} rms {ru:.9f}")
    print(f"{name}: hedged   mean {mh:.9f} sd {sh:.9f} rms {rh:.9f}")
    print(f"{name}: var removed {1 - sh * sh / (su * su):.9f} rms reduction {1 - rh / ru:.9f}")


di, dr = diff(index), diff(rent)
a, h = ols(di, dr)
rho = corr(di, dr)
lag = math.floor(4 * (len(di) / 100) ** (2 / 9))
se = nw_se(di, dr, lag)
print(f"s6: h {h:.9f} rho {rho:.9f} nw lag {lag} se {se:.9f}")
print(f"s6: h interval [{h - Z * se:.9f}, {h + Z * se:.9f}]")
lo, hi = fisher(rho, len(di))
print(f"s6: he interval [{lo:.9f}, {hi:.9f}]")
print(f"fisher(-0.5, 20) = {fisher(-0.5, 20)}; fisher(0.3, 10) = {fisher(0.3, 10)}")

# roll at ratio 1 with 720 contracts of 1000 on 720000 GPU-hours: hedged
# error = Δr - Δi exactly, so the variance removed is HE(1); at --ratio
# 1.027820 the contracts are round(740.07) = 740, an effective ratio 740/720
print(f"s6 roll: var removed at ratio 1 = HE(1) {he(di, dr, 1.0):.9f}")
print(f"s6 roll: var removed at 740/720 {he(di, dr, 740 / 720):.9f} (HE at OLS h {he(di, dr, h):.9f})")

# by-hand roll (tests/test_hedge_replay.c): index Jan..Apr 2.00 2.10 1.90
# 2.05, rent 2.50 2.60 2.40 2.55 (quantities 1000 1200 800 1000), payer,
# ratio 0.9, size 100: hedged Feb..Apr 2.525 2.675 2.445; locked price =
# previous month's rent
u = [2.60 - 2.50, 2.40 - 2.60, 2.55 - 2.40]
hh = [2.525 - 2.50, 2.675 - 2.60, 2.445 - 2.40]
errs("roll by hand", u, hh)

# by-hand strip of 3 months entered at the end of January: 10 contracts
# (1000 GPU-hours x 1 / 100) of Feb, Mar and Apr at Jan's FSP 2.00; locked
# price 2.00 + (2.50 - 2.00) = 2.50 for the three months
q = [1200, 800, 1000]
r = [2.60, 2.40, 2.55]
fsp = [2.10, 1.90, 2.05]
pnl = [10 * 100 * (f - 2.00) for f in fsp]
hedged = [p - x / qq for p, x, qq in zip(r, pnl, q)]
print("strip by hand: pnl", [round(x, 6) for x in pnl], "hedged", [round(x, 9) for x in hedged])
errs("strip by hand", [p - 2.50 for p in r], [x - 2.50 for x in hedged])
bud = sum(qq * 2.50 for qq in q)
unh = sum(qq * p for qq, p in zip(q, r))
hed = sum(qq * p for qq, p in zip(q, hedged))
print(f"strip by hand: budget {bud:.6f} unhedged {unh:.6f} ({unh / bud - 1:.9f}) hedged {hed:.6f} ({hed / bud - 1:.9f})")
