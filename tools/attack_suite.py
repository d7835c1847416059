#!/usr/bin/python3
"""tools/attack_suite.py -- issue 26's attack suite on the real catalogue:
how far one participant moves the final settlement price (FSP) of a monthly
contract on each grade of a grades file.

Usage (from the repository root, after `make`):

    /usr/bin/python3 tools/attack_suite.py [--bin build/gpuidx]
        [--grades data/grades.json] [--data data] [--real PATH]
        [--work DIR] [--keep] [--months 2024-01..2024-04]
        [--segments neocloud,hyperscaler] [--csv FILE]
        [--limit PCT --limit-grades REGEX] [--gpu-filter REGEX]

The attacks (METHODOLOGY.md §11; issue 26 "Done means"), each alone:

  absent:DAYS     FluidStack (every row of its provider group) is absent on
                  DAYS: 2024-03-01; 2024-02-27..03-01; 2024-02-26..03-01;
                  2024-03-12..03-15
  new-SEG:DAYS    a new seller of segment SEG (each of --segments) lists
                  one offer of 1000 USD per GPU-hour in every grade (one
                  offer per GPU model and term the grades name; region
                  us-east-1, scope vm, gpu_count 1) on each day of the same
                  four day sets
  relist          RunPod's H100 offers (raw GPU names with H100, so both
                  its SXM and PCIe parts) from 2024-02-10 on are listed
                  under new ids ("relist-" + id), prices unchanged

For each, the perturbed catalogue is ingested into a scratch database, the
grades are built over the months' listing period (--months; the first
month's listing day, the first day of the month before, through the last
month's last day), monthly contracts (tick 0.0001, min_published_days 15)
settle on them (`gpuidx settle`), and each month's FSP is compared with the
unperturbed build's: move = FSP attacked / FSP - 1.

How the databases are made (ingesting the real file takes seconds, so it is
done once): the catalogue, cut to the days from 120 days before the build's
first day through its last (a build reads back at most that far: v1's
adjustment and carry, v2's rebalance period and anchor window), is split
into a core file (everything but FluidStack's rows on the attack days and
RunPod's H100 rows from 2024-02-10) and the pieces left out.  The core is
ingested once; every variant is a copy of that database plus the small
files of its pieces (FluidStack's rows on the days it is present, RunPod's
rows with their ids or new ones, the new seller's offers).  Stored
observations do not depend on the files they came in, so the unperturbed
variant equals a build from one ingest of the whole slice (checked when the
suite was written: `index show` identical, every grade and day).

The new sellers need providers that data/providers.csv lists (a provider
it does not list is refused at ingest; --admit-providers would put it in
segment "unknown", outside every segment grade): the tool copies the data
directory into its scratch directory and appends one provider per segment,
`attacker-SEG` (its own group), and makes the --grades file its published
set (grades.json), so a grade may reuse a shipped id with another
definition.  Nothing else in the tables changes.

Output: per grade, a table of the moves (%, 2 decimals) by attack and
month, and the largest |move| of each grade; --csv FILE writes every
(attack, grade, month) with both FSPs.  --limit PCT with --limit-grades
REGEX makes the exit status 1 when any month of a grade whose id matches
REGEX moves by more than PCT % under any attack.  Then the bound check
(issue 26 item 5, METHODOLOGY.md §11.4): each month's last day of the
unperturbed build is published (`index publish`) and every measured move
of a v3 grade's FSP is compared with the published figure that bounds it
(index.json v3.manipulation.fsp_move, rounded up to the 0.0001 tick):
absent with "absent", new with "new", relist with "print" (a member
changing its own listings); --bounds makes the exit status 1 when one
exceeds it.  --gpu-filter REGEX keeps
only the catalogue's rows whose raw GPU name matches REGEX (search, any
case): a quicker suite for grades of those GPUs alone (the e2e test).  Exit 77 when the real
catalogue is absent, 2 on a usage error, 1 when a step fails.
"""
import argparse
import csv
import datetime as dt
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.path.join(SRC, "..", "shared", "data", "real", "skypilot_offers_canonical.csv.gz")

DAY_SETS = [
    ("2024-03-01", "2024-03-01"),
    ("2024-02-27", "2024-03-01"),
    ("2024-02-26", "2024-03-01"),
    ("2024-03-12", "2024-03-15"),
]
ABSENT_GROUP = "fluidstack"
RELIST_GROUP = "runpod"
RELIST_FROM = "2024-02-10"
RELIST_GPU = "H100"
NEW_PRICE = "1000"
SLICE_BACK_DAYS = 120


def days_of(a, b):
    x, y = dt.date.fromisoformat(a), dt.date.fromisoformat(b)
    out = []
    while x <= y:
        out.append(x.isoformat())
        x += dt.timedelta(days=1)
    return out


def set_label(a, b):
    return a if a == b else f"{a}..{b[5:]}"


def month_range(spec):
    m = re.fullmatch(r"(\d{4})-(\d{2})(?:\.\.(\d{4})-(\d{2}))?", spec)
    if not m:
        raise SystemExit("attack_suite: --months: want YYYY-MM or YYYY-MM..YYYY-MM "
                         f"(got \"{spec}\")")
    y0, m0 = int(m.group(1)), int(m.group(2))
    y1, m1 = (int(m.group(3)), int(m.group(4))) if m.group(3) else (y0, m0)
    out = []
    while (y0, m0) <= (y1, m1):
        out.append((y0, m0))
        y0, m0 = (y0 + 1, 1) if m0 == 12 else (y0, m0 + 1)
    if not out or any(not 1 <= mm <= 12 for _, mm in out):
        raise SystemExit(f"attack_suite: --months: empty or invalid range (got \"{spec}\")")
    return out


def last_day(y, m):
    nxt = dt.date(y + (m == 12), 1 if m == 12 else m + 1, 1)
    return (nxt - dt.timedelta(days=1)).isoformat()


def fold(name):
    return " ".join(name.strip().lower().split())


def provider_groups(data_dir):
    """alias (folded) -> group, from providers.csv."""
    out = {}
    with open(os.path.join(data_dir, "providers.csv"), newline="") as f:
        rows = (line for line in f if not line.startswith("#"))
        for r in csv.DictReader(rows):
            out[fold(r["alias"])] = r["group"].strip().lower()
    return out


class Runner:
    def __init__(self, binary, data_dir, work, log):
        self.bin, self.data, self.work, self.log = binary, data_dir, work, log

    def gpuidx(self, db, *args, ok=(0,)):
        cmd = [self.bin, "--db", db, "--data", self.data, *args]
        p = subprocess.run(cmd, cwd=self.work, capture_output=True, text=True)
        self.log.write(f"$ {' '.join(cmd)}\n(exit {p.returncode})\n{p.stderr[-2000:]}\n")
        if p.returncode not in ok:
            raise SystemExit(f"attack_suite: {' '.join(cmd[3:])}: exit {p.returncode}: "
                             f"{p.stderr.strip()[-500:]}")
        return p.stdout

    def ingest(self, db, path):
        # rejects (TPUs, non-GPUs of the real file) give exit 1 with the file stored
        out = self.gpuidx(db, "ingest", path, ok=(0, 1))
        if "stored" not in out:
            raise SystemExit(f"attack_suite: ingest {path}: nothing stored: {out.strip()}")


def copy_db(src, dst):
    for suffix in ("", "-wal"):
        if os.path.exists(src + suffix):
            shutil.copyfile(src + suffix, dst + suffix)


def remove_db(db):
    for suffix in ("", "-wal", "-shm", ".lock"):
        try:
            os.remove(db + suffix)
        except FileNotFoundError:
            pass


def split_catalogue(real, work, groups, first, last, union, gpu_re):
    """Writes core.csv and returns (header, fs rows by day, runpod H100 rows)."""
    fs, rp = {d: [] for d in union}, []
    n_core = 0
    with gzip.open(real, "rt", newline="") as f, open(os.path.join(work, "core.csv"), "w") as out:
        header = f.readline()
        cols = header.rstrip("\r\n").split(",")
        ix = {c: i for i, c in enumerate(cols)}
        for need in ("id", "observed_at", "provider", "gpu"):
            if need not in ix:
                raise SystemExit(f"attack_suite: {real}: no column {need}")
        out.write(header)
        for line in f:
            if '"' in line:
                row = next(csv.reader([line]))
            else:
                row = line.rstrip("\r\n").split(",")
            day = row[ix["observed_at"]][:10]
            if day < first or day > last:
                continue
            if gpu_re and not gpu_re.search(row[ix["gpu"]]):
                continue
            grp = groups.get(fold(row[ix["provider"]]), "")
            if grp == ABSENT_GROUP and day in fs:
                fs[day].append(line)
            elif grp == RELIST_GROUP and day >= RELIST_FROM and \
                    RELIST_GPU in row[ix["gpu"]].upper():
                rp.append((row, ix["id"]))
            else:
                out.write(line)
                n_core += 1
    return header, fs, rp, n_core


def write_rows(path, header, lines):
    with open(path, "w") as f:
        f.write(header)
        f.writelines(lines)


def csv_line(row):
    if any(c in x for x in row for c in ',"\n'):
        import io
        b = io.StringIO()
        csv.writer(b, lineterminator="\n").writerow(row)
        return b.getvalue()
    return ",".join(row) + "\n"


def attacker_rows(header, grades, segment, days):
    """One 1000 USD offer per (GPU, term) of the grades and day, by attacker-SEG."""
    cols = header.rstrip("\r\n").split(",")
    pairs = []
    for g in grades:
        term = g.get("term", "on-demand")
        if term not in ("on-demand", "spot"):
            continue
        for gpu in g.get("gpu", []):
            if (gpu, term) not in pairs:
                pairs.append((gpu, term))
    lines = []
    prov = f"attacker-{segment}"
    for day in days:
        for gpu, term in pairs:
            v = {"kind": "offer", "id": f"{prov}-{gpu}@us-east-1/1x/{term}", "observed_at": day,
                 "source": f"attack:{prov}", "provider": prov, "region": "us-east-1",
                 "gpu": gpu, "sku": f"{prov}-{gpu}", "gpu_count": "1", "price": NEW_PRICE,
                 "currency": "USD", "unit": "gpu-hour", "scope": "vm", "term": term}
            lines.append(csv_line([v.get(c, "") for c in cols]))
    return lines


def settle(run, db, contracts_path, symbols):
    """symbol -> FSP text ('' when insufficient)."""
    out = run.gpuidx(db, "settle", "--contracts", contracts_path)
    fsp = {}
    for r in csv.DictReader(out.splitlines()):
        if r["kind"] in ("final", "insufficient"):
            fsp[r["symbol"]] = r["settlement_price"]
    return {s: fsp.get(s, "") for s in symbols}


def main():
    ap = argparse.ArgumentParser(description="issue 26's attack suite (see the file's notes)")
    ap.add_argument("--bin", default=os.path.join(SRC, "build", "gpuidx"))
    ap.add_argument("--grades", default=os.path.join(SRC, "data", "grades.json"))
    ap.add_argument("--data", default=os.path.join(SRC, "data"))
    ap.add_argument("--real", default=REAL)
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--months", default="2024-01..2024-04")
    ap.add_argument("--segments", default="neocloud,hyperscaler")
    ap.add_argument("--csv")
    ap.add_argument("--limit", type=float)
    ap.add_argument("--limit-grades", default=".*")
    ap.add_argument("--gpu-filter")
    ap.add_argument("--bounds", action="store_true",
                    help="exit 1 when a measured move exceeds its published figure")
    a = ap.parse_args()
    if not os.access(a.real, os.R_OK):
        print(f"skip: {a.real} is absent", file=sys.stderr)
        return 77
    binary = os.path.abspath(a.bin)
    with open(a.grades) as f:
        grades = json.load(f)["grades"]
    months = month_range(a.months)
    y0, m0 = months[0]
    build_from = (dt.date(y0, m0, 1) - dt.timedelta(days=1)).replace(day=1).isoformat()
    build_to = last_day(*months[-1])
    slice_from = (dt.date.fromisoformat(build_from) -
                  dt.timedelta(days=SLICE_BACK_DAYS)).isoformat()
    segments = [s.strip() for s in a.segments.split(",") if s.strip()]
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="gpuidx-attack-")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "data")
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(a.data, data)
    # the grades attacked are the scratch data directory's published set:
    # a grade may then reuse a shipped id with another definition (the
    # issue's H100-SXM.OD as v2 beside the shipped v3 one)
    shutil.copyfile(a.grades, os.path.join(data, "grades.json"))
    with open(os.path.join(data, "providers.csv"), "a") as f:
        for s in segments:
            f.write(f"attacker-{s},attacker-{s},attacker-{s},{s}\n")
    log = open(os.path.join(work, "log.txt"), "w")
    run = Runner(binary, data, work, log)
    try:
        return suite(a, run, work, grades, months, build_from, build_to, slice_from, segments)
    finally:
        log.close()
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)


def suite(a, run, work, grades, months, build_from, build_to, slice_from, segments):
    sets = [days_of(x, y) for x, y in DAY_SETS]
    union = sorted({d for s in sets for d in s})
    groups = provider_groups(a.data)
    gpu_re = re.compile(a.gpu_filter, re.I) if a.gpu_filter else None
    header, fs, rp, n_core = split_catalogue(a.real, work, groups, slice_from, build_to, union,
                                             gpu_re)
    p = lambda name: os.path.join(work, name)
    rp_same = [ln for row, _ in rp for ln in [csv_line(row)]]
    rp_new = []
    for row, i in rp:
        r = list(row)
        r[i] = "relist-" + r[i]
        rp_new.append(csv_line(r))
    write_rows(p("rp_same.csv"), header, rp_same)
    write_rows(p("rp_new.csv"), header, rp_new)
    core = p("core.db")
    remove_db(core)
    run.ingest(core, p("core.csv"))
    os.remove(p("core.csv"))

    contracts, symbols = [], {}
    for gi, g in enumerate(grades):
        for (y, m) in months:
            sym = f"S{gi:03d}-{y % 100:02d}{m:02d}"
            contracts.append({"symbol": sym, "grade": g["id"], "month": f"{y}-{m:02d}",
                              "size": 1000, "tick": "0.0001", "min_published_days": 15})
            symbols[sym] = (g["id"], f"{y}-{m:02d}")
    with open(p("contracts.json"), "w") as f:
        json.dump({"contracts": contracts}, f, indent=1)

    def variant(name, fs_days, relisted, extra):
        db = p(f"v-{name}.db")
        remove_db(db)
        copy_db(core, db)
        lines = [ln for d in union if d in fs_days for ln in fs[d]]
        if lines:
            write_rows(p("fs.csv"), header, lines)
            run.ingest(db, p("fs.csv"))
        run.ingest(db, p("rp_new.csv" if relisted else "rp_same.csv"))
        if extra:
            write_rows(p("extra.csv"), header, extra)
            run.ingest(db, p("extra.csv"))
        run.gpuidx(db, "index", "build", "--grades", os.path.abspath(a.grades),
                   "--from", build_from, "--to", build_to)
        show = run.gpuidx(db, "index", "show", "--from", build_from, "--to", build_to)
        with open(p(f"show-{name}.csv"), "w") as f:
            f.write(show)
        out = settle(run, db, p("contracts.json"), symbols)
        if name == "base":
            figures.update(published_figures(run, db, p("pub"), months))
        remove_db(db)
        return out

    all_days = set(union)
    figures = {}
    base = variant("base", all_days, False, None)
    attacks = []
    for (x, y), s in zip(DAY_SETS, sets):
        attacks.append((f"absent {set_label(x, y)}", lambda s=s: variant(
            "absent", all_days - set(s), False, None)))
        ATTACK_DAYS[f"absent {set_label(x, y)}"] = len(s)
    for seg in segments:
        for (x, y), s in zip(DAY_SETS, sets):
            attacks.append((f"new {seg} {set_label(x, y)}", lambda s=s, seg=seg: variant(
                "new", all_days, False, attacker_rows(header, grades, seg, s))))
            ATTACK_DAYS[f"new {seg} {set_label(x, y)}"] = len(s)
    attacks.append((f"relist {RELIST_FROM}..", lambda: variant("relist", all_days, True, None)))
    results = [(name, fn()) for name, fn in attacks]
    remove_db(core)
    return report(a, grades, months, symbols, base, results, n_core, slice_from, build_from,
                  build_to, figures)


def move(b, x):
    if not b or not x:
        return None
    return float(x) / float(b) - 1.0


def published_figures(run, db, out, months):
    """(grade, month) -> {kind: USD figure or None}: index.json's
    v3.manipulation.fsp_move on each month's last day (METHODOLOGY.md
    §11.4), as `index publish` writes it from the unperturbed build."""
    figs = {}
    for (y, m) in months:
        day = last_day(y, m)
        run.gpuidx(db, "index", "publish", "--date", day, "--out", out, ok=(0, 1))
        path = os.path.join(out, day, "index.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            doc = json.load(f)
        for r in doc.get("rows", []):
            man = (r.get("v3") or {}).get("manipulation")
            if man:
                figs[(r["grade"], f"{y}-{m:02d}")] = man["fsp_move"]
    shutil.rmtree(out, ignore_errors=True)
    return figs


# which published figure bounds which attack: a withdrawal, a new
# participant; relisting is a member's change of its own listings (print)
BOUND_OF = (("absent", "absent"), ("new", "new"), ("relist", "print"))
ATTACK_DAYS = {}  # attack -> its days (absent, new)


def in_scope(name, kind, g):
    """The figures are of a withdrawal of 1..K+1 days and a listing of
    1..A+1 days (METHODOLOGY.md §11.4): longer attacks are not theirs."""
    p = g.get("absence_days", 7) if kind == "absent" else g.get("admission_days", 7)
    return kind == "print" or ATTACK_DAYS.get(name, 0) <= int(p) + 1


def bound_check(a, grades, months, symbols, base, results, figures):
    """Every measured move against its published figure (rounded up to
    the contracts' tick, 0.0001).  Returns the failures."""
    import math
    by = {(gid, mon): sym for sym, (gid, mon) in symbols.items()}
    n, fails, worst, out = 0, [], {}, 0
    for g in grades:
        gid = g["id"]
        for (y, m) in months:
            mon = f"{y}-{m:02d}"
            fig = figures.get((gid, mon))
            b = base[by[(gid, mon)]]
            if not fig or not b:
                continue
            for name, res in results:
                kind = next(k for pre, k in BOUND_OF if name.startswith(pre))
                if not in_scope(name, kind, g):
                    out += 1
                    continue
                x = res[by[(gid, mon)]]
                mv = abs(float(x) - float(b)) if x else math.inf
                bound = fig.get(kind)
                bound = math.inf if bound is None else math.ceil(round(bound * 1e6) / 100) / 1e4
                n += 1
                if mv > bound + 1e-12:
                    fails.append((gid, mon, name, mv, bound))
                w = worst.get(gid)
                if w is None or mv > w[0]:
                    worst[gid] = (mv, bound, name, mon)
    print(f"\nbound check: {n} (attack, grade, month) moves against the published figures "
          "(index.json v3.manipulation.fsp_move of the month's last day, rounded up to the "
          f"0.0001 tick); {out} left out: an absence longer than absence_days + 1 or a "
          "listing longer than admission_days + 1 days, beyond the figures' scope")
    for gid, (mv, bound, name, mon) in worst.items():
        print(f"  {gid}: largest measured move {mv:.4f} USD ({name}, {mon}); figures "
              + ", ".join(f"{k} {figures[(gid, mon)][k]}" for k in ("absent", "print", "new")))
    for gid, mon, name, mv, bound in fails:
        print(f"  exceeds its figure: {gid} {mon} {name}: moved {mv:.4f}, figure {bound:.4f}")
    if not fails:
        print(f"  every measured move is within its figure")
    return fails


def report(a, grades, months, symbols, base, results, n_core, slice_from, build_from, build_to,
           figures):
    mlabels = [f"{y}-{m:02d}" for y, m in months]
    print(f"attack suite: grades {a.grades}; catalogue {slice_from}..{build_to} "
          f"({n_core} rows in the core file); built {build_from}..{build_to}; "
          f"FSP of each month, tick 0.0001, min_published_days 15")
    by = {}
    for sym, (gid, mon) in symbols.items():
        by[(gid, mon)] = sym
    rows, worst, fail = [], {}, []
    pat = re.compile(a.limit_grades)
    for g in grades:
        gid = g["id"]
        if not any(base[by[(gid, m)]] for m in mlabels):
            print(f"\n{gid}: no FSP in any month of the range (nothing to move)")
            continue
        w = max(len(n) for n, _ in results)
        print(f"\n{gid} ({g.get('method', 'v1')}): move of the FSP, %")
        print(f"  {'FSP':<{w}} " + " ".join(f"{m:>9}" for m in mlabels))
        print(f"  {'unperturbed':<{w}} " + " ".join(f"{base[by[(gid, m)]] or '-':>9}"
                                                    for m in mlabels))
        for name, res in results:
            cells = []
            for m in mlabels:
                sym = by[(gid, m)]
                mv = move(base[sym], res[sym])
                rows.append((name, gid, m, base[sym], res[sym], mv))
                cells.append("-" if mv is None else f"{100 * mv:+.2f}")
                if mv is not None and abs(mv) > abs(worst.get(gid, (0, "", ""))[0]):
                    worst[gid] = (mv, name, m)
                if mv is not None and a.limit is not None and pat.fullmatch(gid) and \
                        abs(100 * mv) > a.limit:
                    fail.append((gid, m, name, mv))
            print(f"  {name:<{w}} " + " ".join(f"{c:>9}" for c in cells))
    print("\nlargest |move| of each grade:")
    for gid, (mv, name, m) in worst.items():
        print(f"  {gid}: {100 * mv:+.2f} % ({name}, {m})")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            wr = csv.writer(f, lineterminator="\n")
            wr.writerow(["attack", "grade", "month", "fsp", "fsp_attacked", "move"])
            for name, gid, m, b, x, mv in rows:
                wr.writerow([name, gid, m, b, x, "" if mv is None else f"{mv:.8f}"])
    bad = bound_check(a, grades, months, symbols, base, results, figures) if figures else []
    if a.bounds and bad:
        return 1
    if a.limit is not None:
        for gid, m, name, mv in fail:
            print(f"over the limit ({a.limit} %): {gid} {m} {name}: {100 * mv:+.2f} %")
        if not fail:
            print(f"every month of the grades matching {a.limit_grades} moved "
                  f"{a.limit} % or less")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
