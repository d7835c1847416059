#!/usr/bin/env python3
"""tests/check_publication.py -- what gpuidx writes, checked as its users load it.

    python3 tests/check_publication.py SRCDIR [--csv DIR]... [--publication DIR]...
                                       [--json-file KIND=FILE]...

--csv DIR          every *.csv under DIR (recursively) loads with Python's csv
                   module with one header and the header's field count on every
                   row, and with pandas (when installed) into exactly the
                   header's columns.  Copies of the shipped tables of
                   SRCDIR/data (bench/accuracy copies them; they are inputs with
                   '#' comment lines, read by gpuidx, not written by it) are
                   left out.
--publication DIR  every DIR/D/index.json of file format 4 or later validates
                   against SRCDIR/schema/index.schema.json (strict: a member the
                   schema does not list fails), and every datapackage.json under
                   DIR describes its CSVs exactly: the header is the schema's
                   field names in order, and every field is of its type (number,
                   integer, boolean, date, datetime) and among its values;
                   every signature.json and restatements.signature.json
                   validates against SRCDIR/schema/signature.schema.json and is
                   a resource of its folder's datapackage.json.
--package DIR      every datapackage.json under DIR describes its CSVs exactly
                   (the site's, beside its CSV files).
--json-file KIND=FILE  FILE validates against SRCDIR/schema/KIND.schema.json
                   (grades, contracts, index).

Prints one line per problem (at most 20 per file) and a summary; exit status
1 when there is a problem, 0 otherwise.  Needs python3-jsonschema for the
schemas (Debian package; tools/deps.sh installs it): without it, exit 77.
"""
import csv
import datetime
import glob
import json
import os
import re
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover
    print("check_publication: python3-jsonschema is not installed (tools/deps.sh installs it)")
    sys.exit(77)

problems = []


def problem(where, what):
    problems.append(f"{where}: {what}")


def validator(srcdir, kind):
    """A strict validator of schema/KIND.schema.json, references between the
    schema files resolved locally."""
    schemas = {}
    for f in glob.glob(os.path.join(srcdir, "schema", "*.schema.json")):
        with open(f) as fh:
            s = json.load(fh)
        schemas[s["$id"]] = s
    root = schemas[f"{kind}.schema.json"]
    cls = jsonschema.Draft202012Validator
    try:  # jsonschema >= 4.18: the referencing library
        from referencing import Registry, Resource
        reg = Registry().with_resources(
            (k, Resource.from_contents(v)) for k, v in schemas.items())
        return cls(root, registry=reg)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(root, store=dict(schemas))
        return cls(root, resolver=resolver)


def check_json(v, path):
    with open(path) as fh:
        doc = json.load(fh)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:20]:
        where = "/".join(str(p) for p in e.absolute_path)
        problem(path, f"{where or '(top)'}: {e.message[:300]}")
    return doc


# ---- CSV files ---------------------------------------------------------------------

def shipped_tables(srcdir):
    out = set()
    for f in glob.glob(os.path.join(srcdir, "data", "*.csv")):
        with open(f, "rb") as fh:
            out.add(fh.read())
    return out


def check_csv_file(path, pandas):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        problem(path, "empty: no header")
        return None
    header, bad = rows[0], 0
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            bad += 1
            if bad <= 5:
                problem(path, f"line {i}: {len(r)} fields, the header has {len(header)}")
    if bad > 5:
        problem(path, f"{bad} lines in all with another field count than the header's")
    if pandas is not None:
        try:
            df = pandas.read_csv(path, dtype=str, keep_default_na=False)
            if list(df.columns) != header:
                problem(path, f"pandas reads columns {list(df.columns)[:5]}..., not the header's")
        except Exception as e:  # pandas' own error: the file does not load
            problem(path, f"pandas cannot load it: {str(e)[:200]}")
    return rows


def check_csv_tree(srcdir, root):
    try:
        import pandas
    except ImportError:
        pandas = None
    tables = shipped_tables(srcdir)
    n = 0
    for path in sorted(glob.glob(os.path.join(root, "**", "*.csv"), recursive=True)):
        with open(path, "rb") as fh:
            if fh.read() in tables:
                continue
        check_csv_file(path, pandas)
        n += 1
    return n


# ---- data packages ---------------------------------------------------------------------

DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
DATETIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
INTEGER = re.compile(r"^-?[0-9]+$")
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")


def value_ok(field, v):
    t = field["type"]
    if t == "string":
        ok = True
    elif t == "integer":
        ok = bool(INTEGER.match(v))
    elif t == "number":
        ok = bool(NUMBER.match(v))
    elif t == "boolean":
        ok = v in field.get("trueValues", ["true"]) + field.get("falseValues", ["false"])
    elif t == "date":
        ok = bool(DATE.match(v))
        if ok:
            try:
                datetime.date.fromisoformat(v)
            except ValueError:
                ok = False
    elif t == "datetime":
        ok = bool(DATETIME.match(v))
    else:
        return f"unknown type {t}"
    if not ok:
        return f"not a {t}"
    enum = field.get("constraints", {}).get("enum")
    if enum is not None and v not in enum:
        return f"not one of {enum}"
    return None


def check_package(path):
    with open(path) as fh:
        pkg = json.load(fh)
    folder = os.path.dirname(path)
    for key in ("profile", "name", "licenses", "resources"):
        if key not in pkg:
            problem(path, f"no {key}")
    for res in pkg.get("resources", []):
        if res.get("profile") != "tabular-data-resource":
            if not os.path.exists(os.path.join(folder, res["path"])):
                problem(path, f"resource {res['path']}: no such file")
            continue
        fields = res["schema"]["fields"]
        missing = res["schema"].get("missingValues", [""])
        csv_path = os.path.join(folder, res["path"])
        if not os.path.exists(csv_path):
            problem(path, f"resource {res['path']}: no such file")
            continue
        for fld in fields:
            if not fld.get("description"):
                problem(path, f"{res['path']} {fld['name']}: no description")
        with open(csv_path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        names = [f["name"] for f in fields]
        if not rows or rows[0] != names:
            problem(csv_path, f"header {rows[0] if rows else None} is not the data package's "
                              f"fields {names}")
            continue
        bad = 0
        for i, r in enumerate(rows[1:], start=2):
            if len(r) != len(fields):
                problem(csv_path, f"line {i}: {len(r)} fields, not {len(fields)}")
                bad += 1
                continue
            for fld, v in zip(fields, r):
                if v in missing:
                    continue
                why = value_ok(fld, v)
                if why:
                    bad += 1
                    if bad <= 10:
                        problem(csv_path, f"line {i} {fld['name']}: {why} (got {v!r})")


def check_publication(srcdir, root):
    v = validator(srcdir, "index")
    n_json = n_pkg = 0
    for path in sorted(glob.glob(os.path.join(root, "**", "index.json"), recursive=True)):
        with open(path) as fh:
            fmt = json.load(fh).get("format", 1)
        if fmt >= 4:
            check_json(v, path)
            n_json += 1
    for path in sorted(glob.glob(os.path.join(root, "**", "datapackage.json"), recursive=True)):
        check_package(path)
        n_pkg += 1
    if n_json == 0:
        problem(root, "no index.json of file format 4 or later")
    # signature files: each validates against schema/signature.schema.json and
    # is listed by its folder's datapackage.json
    sv = validator(srcdir, "signature")
    for pat in ("signature.json", "restatements.signature.json"):
        for path in sorted(glob.glob(os.path.join(root, "**", pat), recursive=True)):
            check_json(sv, path)
            pkg = os.path.join(os.path.dirname(path), "datapackage.json")
            listed = []
            if os.path.exists(pkg):
                with open(pkg) as fh:
                    listed = [r.get("path") for r in json.load(fh).get("resources", [])]
            if os.path.basename(path) not in listed:
                problem(path, "not a resource of its folder's datapackage.json")
    return n_json, n_pkg


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    srcdir, args = argv[1], argv[2:]
    said = []
    i = 0
    while i < len(args):
        opt, val = args[i], args[i + 1] if i + 1 < len(args) else None
        if val is None:
            print(f"check_publication: {opt} needs a value")
            return 2
        if opt == "--csv":
            said.append(f"{check_csv_tree(srcdir, val)} CSV files under {val}")
        elif opt == "--publication":
            nj, npk = check_publication(srcdir, val)
            said.append(f"{nj} index.json and {npk} datapackage.json under {val}")
        elif opt == "--package":
            n = 0
            for path in sorted(glob.glob(os.path.join(val, "**", "datapackage.json"),
                                         recursive=True)):
                check_package(path)
                n += 1
            if n == 0:
                problem(val, "no datapackage.json")
            said.append(f"{n} datapackage.json under {val}")
        elif opt == "--json-file":
            kind, _, path = val.partition("=")
            check_json(validator(srcdir, kind), path)
            said.append(f"{path} ({kind})")
        else:
            print(f"check_publication: unknown option {opt}")
            return 2
        i += 2
    for p in problems:
        print(p)
    print(f"check_publication: {len(problems)} problems in " + "; ".join(said))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
