#!/usr/bin/python3
"""bench/pandas_pipeline.py -- SPEC §6 index methodology v1 in pandas.

The comparison side of bench/index: the same job as
`gpuidx ingest offers|trades` + `gpuidx index build` + `gpuidx index publish`
(canonical CSV in, one row per grade-day out), written the way a data team
would write it: read_csv, vectorised normalisation, groupby, and a small
per-day loop where the method is inherently sequential.

Per grade and day it does what gpuidx does:
  - normalisation to USD per GPU-hour (instance units / gpu_count, month
    units / 730), canonical GPU names through data/gpus.csv, provider
    group and segment through data/providers.csv, tier from the row;
  - eligibility: the grade's filter; trades without cancelled/affiliate
    status and without a buyer in the seller's group; offers: the latest
    snapshot of each (source, id) within the day;
  - error screen: per provider group with >= 3 prices, drop prices beyond
    3x / 1/3x of the group's median;
  - trades level: >= 1000 GPU-hours from >= min_providers groups ->
    volume-weighted median after water-filling the per-group cap
    max(0.30, 1/n);
  - offers level: median of provider-group medians, x the adjustment a
    (median of trades/offers raw ratios over the previous 30 days, >= 5 days,
    rounded to 6 decimals);
  - carried up to 5 days, then suspended; p10..p90 of the level's prices.
Simplifications (stated in BENCHMARKS.md): floating point instead of exact
arithmetic (a weighted-median tie is detected with a 1e-12 tolerance),
currency conversion is not done (the benchmark market is all USD), the
tiers table is not consulted (the benchmark market has a tier column),
no publication files beyond one CSV.
"""
import argparse
import json
import os
import re
import sys

import numpy as np
import pandas as pd

TIERS = {"unrated": 0, "underperform": 1, "bronze": 2, "silver": 3, "gold": 4, "platinum": 5}
NS_DAY = 86_400_000_000_000


def norm(s):
    return re.sub(r"[\s_\-]", "", str(s).lower())


def load_gpus(path):
    """alias (normalised) -> canonical; tolerant of the table's column names."""
    m = {}
    if not os.path.exists(path):
        return m
    t = pd.read_csv(path, dtype=str, comment="#").fillna("")
    canon = "canonical" if "canonical" in t.columns else t.columns[0]
    alias = "alias" if "alias" in t.columns else ("name" if "name" in t.columns else canon)
    for a, c in zip(t[alias], t[canon]):
        m.setdefault(norm(a), c)
    return m


def load_providers(path):
    """name (lower, folded spaces) -> (canonical, group, segment)."""
    m = {}
    if not os.path.exists(path):
        return m
    t = pd.read_csv(path, dtype=str, comment="#").fillna("")
    cols = t.columns
    canon = "provider" if "provider" in cols else ("canonical" if "canonical" in cols else cols[0])
    names = [c for c in ("alias", "name", "provider", "canonical") if c in cols]
    for _, r in t.iterrows():
        c = r[canon]
        g = r["group"] if "group" in cols and r["group"] else c
        s = r["segment"] if "segment" in cols and r["segment"] else "unknown"
        for n in names:
            if r[n]:
                m.setdefault(" ".join(r[n].lower().split()), (c, g, s))
    return m


def read_obs(path, kind, gpus, provs):
    df = pd.read_csv(path, dtype={"id": str, "source": "category", "provider": "category",
                                  "gpu": "category", "unit": "category", "scope": "category",
                                  "tier": "category", "term": "category", "buyer": "category",
                                  "status": "category", "region": "category", "sku": "category",
                                  "currency": "category", "kind": "category"},
                     engine="c")
    ts = pd.to_datetime(df["observed_at"], utc=True)
    df["day"] = (ts.values.astype("int64") // NS_DAY).astype("int32")
    df["ts"] = ts.values.astype("int64")
    unit = df["unit"].astype(str).str.lower() if "unit" in df else "gpu-hour"
    cnt = df["gpu_count"].fillna(1) if "gpu_count" in df else 1
    per = np.where(unit.str.startswith("instance"), cnt, 1) * np.where(unit.str.endswith("month"), 730, 1)
    df["px"] = df["price"].astype(float) / per
    df["gpu_c"] = df["gpu"].cat.rename_categories(lambda g: gpus.get(norm(g), g)) \
        if gpus else df["gpu"]
    pc = df["provider"].cat.categories
    info = [provs.get(" ".join(str(p).lower().split()), (p, p, "unknown")) for p in pc]
    codes = df["provider"].cat.codes.values
    df["group"] = pd.Categorical.from_codes(codes, categories=pd.Index([i[1] for i in info]).unique()) \
        if False else np.array([i[1] for i in info], dtype=object)[codes]
    df["segment"] = np.array([i[2] for i in info], dtype=object)[codes]
    df["tier_r"] = df["tier"].astype(str).str.lower().map(TIERS).fillna(0).astype(int) \
        if "tier" in df else 0
    df["term_s"] = df["term"].astype(str).str.lower() if "term" in df else "on-demand"
    df["months"] = df["term_months"].fillna(0).astype(int) if "term_months" in df else 0
    df["scope_s"] = df["scope"].astype(str).str.lower() if "scope" in df else "vm"
    if kind == "trade":
        st = df["status"].astype(str).str.lower() if "status" in df else "ok"
        ok = (st == "ok") | (st == "nan")
        if "buyer" in df:
            bc = df["buyer"].cat.categories
            binfo = np.array([provs.get(" ".join(str(b).lower().split()), (b, b, ""))[1]
                              for b in bc] + [None], dtype=object)
            bg = binfo[df["buyer"].cat.codes.values]  # code -1 -> None
            ok &= bg != df["group"].values
        df = df[ok]
        df = df.assign(qty=df["quantity"].astype(float))
    else:
        df = df.sort_values("ts", kind="stable")
        df = df.drop_duplicates(["day", "source", "id"], keep="last")
    return df


def grade_mask(df, g):
    m = df["gpu_c"].isin(g["gpu"]).values
    if g.get("scope"):  # absent: every scope
        m &= df["scope_s"].isin(g["scope"]).values
    m &= df["tier_r"].values >= TIERS[g.get("min_tier", "unrated")]
    term = g.get("term", "on-demand")
    if term.startswith("reserved"):
        a, b = (int(x) for x in term.split(":")[1].split("-"))
        m &= (df["term_s"].values == "reserved") & (df["months"].values >= a) & (df["months"].values <= b)
    else:
        m &= df["term_s"].values == term
    if g.get("segments"):
        m &= df["segment"].isin(g["segments"]).values
    if g.get("providers"):
        m &= df["provider"].astype(str).isin(g["providers"]).values
    return m


def screen(df, f=3.0):
    key = [df["day"].values, df["group"].values]
    gb = df.groupby(key, sort=False)["px"]
    med = gb.transform("median").values
    cnt = gb.transform("size").values
    px = df["px"].values
    keep = (cnt < 3) | ((px <= f * med) & (px * f >= med))
    return df[keep], int((~keep).sum())


def capped_wmedian(px, q, grp):
    groups, inv = np.unique(grp, return_inverse=True)
    vol = np.bincount(inv, weights=q)
    tot = vol.sum()
    w = vol / tot
    s = max(0.30, 1.0 / len(groups))
    capped = np.zeros(len(groups), bool)
    while True:
        free = 1.0 - s * capped.sum()
        rest = w[~capped].sum()
        nw = np.where(capped, s, w * free / rest)
        over = (~capped) & (nw > s + 1e-15)
        if not over.any():
            break
        capped |= over
    wt = q * (nw / w)[inv]
    order = np.argsort(px, kind="stable")
    ps, ws = px[order], wt[order]
    uniq, start = np.unique(ps, return_index=True)
    wsum = np.add.reduceat(ws, start)
    cum = np.cumsum(wsum)
    half = cum[-1] / 2
    i = int(np.searchsorted(cum, half - 1e-12 * cum[-1]))
    if abs(cum[i] - half) <= 1e-12 * cum[-1] and i + 1 < len(uniq):
        return (uniq[i] + uniq[i + 1]) / 2
    return uniq[i]


def grade_series(offers, trades, g, days):
    mp = g.get("min_providers", 3)
    t_raw = trades[grade_mask(trades, g)]
    o_raw = offers[grade_mask(offers, g)]
    ts, _ = screen(t_raw)
    os_, _ = screen(o_raw)
    res = {}
    # trades level candidates
    tr = {}
    for d, part in ts.groupby("day", sort=True):
        vol = part["qty"].values.sum()
        ng = part["group"].nunique()
        if vol >= 1000 and ng >= mp:
            tr[d] = (capped_wmedian(part["px"].values, part["qty"].values, part["group"].values),
                     part["px"].values, ng)
    of = {}
    if len(os_):
        pm = os_.groupby(["day", "group"], sort=True)["px"].median()
        for d, s in pm.groupby(level=0):
            if len(s) >= mp:
                of[d] = [float(np.median(s.values)), None, len(s)]
        for d, part in os_.groupby("day", sort=True):
            if d in of:
                of[d][1] = part["px"].values
    n_obs = t_raw.groupby("day").size().add(o_raw.groupby("day").size(), fill_value=0)
    prev, carried = None, 0
    for d in days:
        row = None
        if d in tr:
            v, px, ng = tr[d]
            row = (round(v, 4), "trades", px, ng)
        elif d in of:
            ratios = [tr[k][0] / of[k][0] for k in range(d - 30, d) if k in tr and k in of]
            a = round(float(np.median(ratios)), 6) if len(ratios) >= 5 else 1.0
            v, px, ng = of[d]
            row = (round(v * a + 1e-12, 4), "offers", px, ng)
        if row:
            q = np.quantile(row[2], [0.1, 0.25, 0.5, 0.75, 0.9])
            res[d] = (row[0], row[1], row[3], q)
            prev, carried = row[0], 0
        elif prev is not None and carried < 5:
            carried += 1
            res[d] = (prev, "carried", 0, None)
        else:
            prev = None
            res[d] = (None, "suspended", 0, None)
    return res, int(n_obs.sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--offers", required=True)
    ap.add_argument("--trades", required=True)
    ap.add_argument("--grades", required=True)
    ap.add_argument("--data", default="data")
    ap.add_argument("--from", dest="d0", required=True)
    ap.add_argument("--to", dest="d1", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    gpus = load_gpus(os.path.join(a.data, "gpus.csv"))
    provs = load_providers(os.path.join(a.data, "providers.csv"))
    offers = read_obs(a.offers, "offer", gpus, provs)
    trades = read_obs(a.trades, "trade", gpus, provs)
    d0 = int(pd.Timestamp(a.d0).value // NS_DAY)
    d1 = int(pd.Timestamp(a.d1).value // NS_DAY)
    offers = offers[(offers["day"] >= d0 - 31) & (offers["day"] <= d1)]
    trades = trades[(trades["day"] >= d0 - 31) & (trades["day"] <= d1)]
    grades = json.load(open(a.grades))["grades"]
    rows = []
    days = list(range(d0, d1 + 1))
    for g in sorted(grades, key=lambda g: g["id"]):
        res, _ = grade_series(offers, trades, g, days)
        for d in days:
            v, lvl, ng, q = res[d]
            rows.append((d, g["id"], v, lvl, ng, q))
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(a.out, "w") as f:
        f.write("date,grade,value,level,n_providers,p25,p75\n")
        for d, gid, v, lvl, ng, q in rows:
            date = (pd.Timestamp(0) + pd.Timedelta(days=d)).strftime("%Y-%m-%d")
            f.write("%s,%s,%s,%s,%d,%s,%s\n" % (date, gid, "" if v is None else "%.4f" % v, lvl, ng,
                                                "" if q is None else "%.6f" % q[1],
                                                "" if q is None else "%.6f" % q[3]))
    print("pandas: %d offers, %d trades eligible rows, %d grade-days -> %s"
          % (len(offers), len(trades), len(rows), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
