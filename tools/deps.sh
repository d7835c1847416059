#!/bin/sh
# tools/deps.sh -- install the Debian packages gpuidx needs, only if missing.
#
# Checks each package with dpkg-query; runs apt-get (update once, then
# install) only when something is absent.  Needs root for the install.
# The build and test packages are required: a failed install stops.  The
# browser of the site's end-to-end test (tests/test_e2e_browser.c: Debian's
# chromium and a font for it) is wanted: when it cannot be installed (no
# network, no root) the script says so and succeeds, and that one test is
# skipped with the same message.
#
# Without dpkg-query and apt-get (any system but Debian and its
# derivatives) nothing is installed: the script checks with the C compiler
# that the libraries' headers are there, names the libraries (and the
# versions gpuidx is tested with) that are missing, and stops; when all
# are there it says so and succeeds (README.md, "Without apt").
# GPUIDX_NO_APT=1 takes that route on Debian too.
#
#   sh tools/deps.sh fuzz    also clang and its runtime (libFuzzer) for
#                            `make fuzz` (required then)
#   sh tools/deps.sh build   what `make demo` and `make bench` need (without
#                            apt: cmocka, the tests' library, is not asked)
set -eu
MODE=${1:-}
PKGS="build-essential pkg-config libsqlite3-dev sqlite3 libcsv-dev libgsl-dev
libjansson-dev libcmocka-dev libssl-dev zlib1g-dev python3-pandas python3-statsmodels
python3-jsonschema"
WANTED="chromium fonts-dejavu-core"
if [ "${1:-}" = fuzz ]; then
    PKGS="$PKGS clang libclang-rt-dev"
    WANTED=""
fi

# ---- without apt: the libraries by their headers --------------------------
# "header|library (Debian package, tested version)|what needs it"
LIBS="sqlite3.h|SQLite 3 (libsqlite3-dev 3.40)|build
csv.h|libcsv 3 (libcsv-dev 3.0.3)|build
gsl/gsl_errno.h|GSL 2 (libgsl-dev 2.7.1)|build
jansson.h|jansson 2 (libjansson-dev 2.14)|build
openssl/evp.h|OpenSSL libcrypto 1.1 or 3 (libssl-dev 3.0)|build
zlib.h|zlib 1.2 (zlib1g-dev 1.2.13)|build
cmocka.h|cmocka 1.1 (libcmocka-dev 1.1.5)|make test"

no_apt() {
    CC=${CC:-cc}
    if ! command -v "$CC" >/dev/null 2>&1; then
        echo "deps: no C compiler ($CC): install a C11 compiler (gcc or clang) and make" >&2
        exit 1
    fi
    missing=""
    old_ifs=$IFS
    IFS='
'
    for l in $LIBS; do
        h=${l%%|*}
        rest=${l#*|}
        [ "${MODE}" = build ] && [ "${rest#*|}" != build ] && continue
        if ! printf '#include <stddef.h>\n#include <stdarg.h>\n#include <setjmp.h>\n#include <%s>\n' "$h" |
            "$CC" -E -x c - >/dev/null 2>&1; then
            missing="$missing
  ${rest%%|*}: <$h> not found (needed for ${rest#*|})"
        fi
    done
    IFS=$old_ifs
    if [ -n "$missing" ]; then
        cat >&2 <<EOM
deps: no apt here (not Debian), so nothing was installed; missing:$missing
deps: install them with your system's packages (headers and libraries),
      then run make again; make STATIC_DEPS=0 links them as shared libraries.
      Also used: sqlite3 (the shell, by tests), python3 with pandas,
      statsmodels and jsonschema (reference tests; skipped without them),
      chromium (the browser test; skipped without it).  README.md, "Without apt".
EOM
        exit 1
    fi
    echo "deps: no apt here; the libraries' headers are all found (README.md, \"Without apt\")" >&2
    exit 0
}

if [ "${GPUIDX_NO_APT:-0}" = 1 ] || ! command -v dpkg-query >/dev/null 2>&1 ||
    ! command -v apt-get >/dev/null 2>&1; then
    no_apt
fi

missing_of() {
    m=""
    for p in "$@"; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case "$st" in
            *"install ok installed"*) ;;
            *) m="$m $p" ;;
        esac
    done
    echo "$m"
}

# shellcheck disable=SC2086
missing=$(missing_of $PKGS)
# shellcheck disable=SC2086
wanted=$(missing_of $WANTED)
[ -z "$missing$wanted" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || [ -z "$missing" ]
if [ -n "$missing" ]; then
    echo "deps: installing:$missing" >&2
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ -n "$wanted" ]; then
    echo "deps: installing (for the browser test):$wanted" >&2
    # shellcheck disable=SC2086
    if ! $SUDO apt-get install -y -qq --no-install-recommends $wanted >/dev/null; then
        echo "deps: could not install$wanted; the browser test will be skipped" >&2
    fi
fi
exit 0
