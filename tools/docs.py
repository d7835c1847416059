#!/usr/bin/env python3
"""tools/docs.py -- the parts of the docs that come from running gpuidx,
regenerated (`make docs`) or checked against a fresh run (`make docs-check`,
tests/test_e2e_docs.c).

    python3 tools/docs.py update|check|list [--bin BIN] [--demo DIR] [--bench DIR]
                                            [--real FILE] [--only KIND,...] [FILE...]

FILE: the documents (default README.md, docs/*.md, BENCHMARKS.md).  update
writes them again with every generated part as a fresh run gives it; check
changes nothing and exits 1 naming every part that differs (a unified diff),
0 when none does; list prints where each part is and what runs it.

MARKERS.  A generated part sits between an opening and a closing HTML comment
(invisible when the Markdown is shown).  Two forms:

  1. A console block: the marker names a session; the block's `$ ` lines are
     the commands (a line ending in \\ continues on the next), run in order,
     and everything else in the block is their output, written again after
     each command (standard output and error together, as a terminal shows
     them):

         <!-- gen: demo -->
         ```console
         $ gpuidx --db demo-out/demo.db index show --grade H100-SXM.OD --from 2025-12-30
         (output, regenerated)
         ```
         <!-- /gen -->

  2. A command in the marker, between backticks: its standard output replaces
     what stands between the markers -- a figure inside a sentence, or a
     table or list written as Markdown (a block marker on a line of its own
     keeps its line breaks):

         the H100 grade moved <!-- gen: demo `sh tools/figure.sh ...` -->-28 %<!-- /gen -->

SESSIONS (the word after "gen:"; "demo:NAME" gives a session of its own):
  demo   a folder holding a copy of the demo's output, demo-out/ (what `make
         demo` writes; --demo DIR names a folder where tools/demo.sh ran,
         else it is run first into a temporary one)
  fresh  an empty folder
  real   an empty folder holding the real catalogue, its file name in $R
         (--real FILE, default ../shared/data/real/skypilot_offers_canonical.csv.gz
         beside the source tree); where it is absent these parts are left as
         they are and not checked, and the run says so
  bench  the folder of `make bench`'s figures (--bench DIR); never run by
         check (timings differ from run to run), left as they are without
         --bench
Every session folder also holds data/, examples/, schema/, tools/ and bench/
of the source tree, so commands name them as a reader in a clone does; gpuidx
is the binary under test (--bin, default build/gpuidx), first on PATH.  The
parts of one session run in document order, in one folder, so a part may use
what an earlier one made; each command line runs on its own (sh -c), so shell
variables do not carry over.

OPTIONS after the session in a marker: "fails" -- a command may exit non-zero
(an example of a mistake and its message); otherwise a non-zero exit is an
error.  "quiet" -- the commands run (and must succeed) but no output is shown.

Paths are shown as the reader's: the source tree's and the session folder's
own prefixes are removed from every output.
"""
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPEN = re.compile(r"<!-- gen: ([a-z]+)(?::([A-Za-z0-9._-]+))?((?: [a-z]+)*)(?: `([^`]*)`)? -->")
CLOSE = "<!-- /gen -->"
LINKS = ("data", "examples", "schema", "tools", "bench")
REAL_DEFAULT = os.path.join(os.path.dirname(SRC), "shared", "data", "real",
                            "skypilot_offers_canonical.csv.gz")


class Failure(Exception):
    pass


def parts(text):
    """(start, end, kind, name, flags, cmd, inner_start, inner_end) of every
    generated part, in order."""
    out, pos = [], 0
    while True:
        m = OPEN.search(text, pos)
        if not m:
            return out
        end = text.find(CLOSE, m.end())
        if end < 0:
            raise Failure(f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} "
                          f"has no {CLOSE}")
        flags = m.group(3).split()
        out.append((m.start(), end + len(CLOSE), m.group(1), m.group(2), flags, m.group(4),
                    m.end(), end))
        pos = end + len(CLOSE)


class Runner:
    def __init__(self, args):
        self.bin = os.path.abspath(args.bin)
        self.tmp = tempfile.mkdtemp(prefix="gpuidx-docs-")
        self.demo = os.path.abspath(args.demo) if args.demo else None
        self.bench = os.path.abspath(args.bench) if args.bench else None
        self.real = args.real
        self.only = args.only.split(",") if args.only else None
        self.sessions = {}
        self.notes = []

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def demo_dir(self):
        if self.demo is None:
            d = os.path.join(self.tmp, "demo")
            os.mkdir(d)
            print("docs: running the demo (tools/demo.sh) for the demo parts...",
                  file=sys.stderr)
            r = subprocess.run(["sh", os.path.join(SRC, "tools", "demo.sh"), self.bin], cwd=d,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise Failure(f"tools/demo.sh failed ({r.returncode}): {r.stderr[-2000:]}")
            self.demo = d
        if not os.path.isdir(os.path.join(self.demo, "demo-out")):
            raise Failure(f"{self.demo}: no demo-out/ (run tools/demo.sh there)")
        return self.demo

    def available(self, kind):
        if kind == "real":
            return os.path.exists(self.real)
        if kind == "bench":
            return self.bench is not None
        return True

    def session(self, kind, name):
        key = (kind, name)
        if key in self.sessions:
            return self.sessions[key]
        if kind == "bench":
            self.sessions[key] = self.bench
            return self.bench
        d = os.path.join(self.tmp, f"s{len(self.sessions)}")
        os.mkdir(d)
        for sub in LINKS:
            if os.path.isdir(os.path.join(SRC, sub)):
                os.symlink(os.path.join(SRC, sub), os.path.join(d, sub))
        if kind == "demo":
            src = os.path.join(self.demo_dir(), "demo-out")
            # files linked, databases copied (SQLite writes them in place)
            dst = os.path.join(d, "demo-out")
            if subprocess.run(["cp", "-al", src, dst], stderr=subprocess.DEVNULL).returncode:
                shutil.rmtree(dst, ignore_errors=True)  # another file system: copied
                subprocess.run(["cp", "-a", src, dst], check=True)
            for db in glob.glob(os.path.join(d, "demo-out", "**", "*.db"), recursive=True):
                tmp = db + ".copy"
                shutil.copyfile(db, tmp)
                os.replace(tmp, db)
        elif kind == "real":
            os.symlink(os.path.abspath(self.real), os.path.join(d, os.path.basename(self.real)))
        elif kind != "fresh":
            raise Failure(f"unknown session {kind}")
        self.sessions[key] = d
        return d

    def run(self, kind, cwd, cmd, may_fail, where):
        env = {"PATH": os.path.dirname(self.bin) + ":/usr/local/bin:/usr/bin:/bin",
               "HOME": cwd, "LC_ALL": "C", "TZ": "UTC", "TMPDIR": self.tmp}
        if kind == "real":
            env["R"] = os.path.basename(self.real)
        r = subprocess.run(cmd, shell=True, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = r.stdout.decode("utf-8", "replace")
        for prefix in (cwd + "/", SRC + "/", self.tmp + "/"):
            out = out.replace(prefix, "")
        if r.returncode != 0 and not may_fail:
            raise Failure(f"{where}: `{cmd}` exited {r.returncode}:\n{out[-1500:]}")
        return out


def commands(block):
    """The commands of a console block's lines, each with its own lines."""
    cmds, cur = [], None
    for line in block:
        if cur is not None:
            cur.append(line)
            if not line.endswith("\\"):
                cmds.append(cur)
                cur = None
            continue
        if line.startswith("$ "):
            if line.endswith("\\"):
                cur = [line]
            else:
                cmds.append([line])
    if cur is not None:
        cmds.append(cur)
    return cmds


def regen(runner, doc, text, kind, name, flags, cmd, inner, where):
    """The new text between the markers of one part."""
    cwd = runner.session(kind, name or doc)
    may_fail = "fails" in flags
    if cmd is not None:
        out = runner.run(kind, cwd, cmd, may_fail, where)
        if inner.startswith("\n"):  # a block: its own lines
            return "\n" + out + ("" if out.endswith("\n") else "\n")
        return out.strip()
    lines = inner.split("\n")
    fence = [i for i, l in enumerate(lines) if l.startswith("```")]
    if len(fence) < 2:
        raise Failure(f"{where}: a console part needs a ``` block")
    a, b = fence[0], fence[-1]
    new = []
    for c in commands(lines[a + 1:b]):
        new.extend(c)
        shell = "\n".join(l[2:] if i == 0 else l for i, l in enumerate(c))
        out = runner.run(kind, cwd, shell, may_fail, where)
        if "quiet" not in flags and out:
            new.extend(out.rstrip("\n").split("\n"))
    return "\n".join(lines[:a + 1] + new + lines[b:])


def process(runner, path, mode):
    with open(path) as fh:
        text = fh.read()
    doc = os.path.relpath(path, SRC)
    out, pos, changed = [], 0, []
    for (s, e, kind, name, flags, cmd, i0, i1) in parts(text):
        line = text.count("\n", 0, s) + 1
        where = f"{doc}:{line}"
        inner = text[i0:i1]
        if mode == "list":
            print(f"{where}: {kind}{':' + name if name else ''} "
                  f"{'`' + cmd + '`' if cmd else '(console block)'} {' '.join(flags)}")
            continue
        out.append(text[pos:i0])
        if (runner.only and kind not in runner.only) or (mode == "check" and kind == "bench") \
                or not runner.available(kind):
            note = f"{doc}: {kind} parts left as they are"
            if kind == "real":
                note += f" ({runner.real} is not there)"
            if note not in runner.notes:
                runner.notes.append(note)
            new = inner
        elif kind == "bench":  # a report make bench did not write: the figures stay
            try:
                new = regen(runner, doc, text, kind, name, flags, cmd, inner, where)
            except Failure:
                runner.notes.append(f"{where}: no report in {runner.bench}: left as it is")
                new = inner
        else:
            new = regen(runner, doc, text, kind, name, flags, cmd, inner, where)
        if new != inner:
            changed.append((where, inner, new))
        out.append(new)
        pos = i1
    out.append(text[pos:])
    new_text = "".join(out)
    if mode == "update" and new_text != text:
        with open(path, "w") as fh:
            fh.write(new_text)
    return changed


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="tools/docs.py")
    p.add_argument("mode", choices=["update", "check", "list"])
    p.add_argument("--bin", default=os.path.join(SRC, "build", "gpuidx"))
    p.add_argument("--demo")
    p.add_argument("--bench")
    p.add_argument("--real", default=REAL_DEFAULT)
    p.add_argument("--only", help="only the parts of these sessions (comma-separated kinds)")
    p.add_argument("files", nargs="*")
    args = p.parse_intermixed_args(argv[1:])
    files = args.files or ([os.path.join(SRC, "README.md")] +
                           sorted(glob.glob(os.path.join(SRC, "docs", "*.md"))) +
                           [os.path.join(SRC, "BENCHMARKS.md")])
    runner = Runner(args)
    n_parts = n_changed = 0
    try:
        for f in files:
            changed = process(runner, f, args.mode)
            if args.mode == "list":
                continue
            with open(f) as fh:
                n_parts += len(parts(fh.read()))
            n_changed += len(changed)
            for where, old, new in changed:
                if args.mode == "check":
                    print(f"{where}: differs from a fresh run:")
                    sys.stdout.writelines(difflib.unified_diff(
                        old.splitlines(True), new.splitlines(True), "committed", "fresh run", n=1))
                    print()
                else:
                    print(f"{where}: regenerated")
    except Failure as e:
        print(f"docs: {e}", file=sys.stderr)
        return 1
    finally:
        runner.close()
    for n in runner.notes:
        print(f"docs: {n}", file=sys.stderr)
    if args.mode == "check":
        print(f"docs: {n_parts} generated parts in {len(files)} files, {n_changed} differ")
        return 1 if n_changed else 0
    if args.mode == "update":
        print(f"docs: {n_parts} generated parts in {len(files)} files, {n_changed} regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
