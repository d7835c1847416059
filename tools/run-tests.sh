#!/bin/sh
# tools/run-tests.sh -- run cmocka test binaries, JOBS at a time, and sum
# their results.
#
#   [JOBS=n] [TEST_TIMES=file] [TEST_LOG=file] sh tools/run-tests.sh build/tests/test_a ...
#
# Each binary runs with its output (stdout and stderr) kept in a file of
# its own.  As each one ends, one line names it with its counts and time
# ("test_e2e_site: 9 passed (4.1 s)"), in the order they end, so a long
# run shows its progress; a binary with a failed test, or that exits
# non-zero without a cmocka summary (a crash, a sanitizer report), has its
# whole output printed under that line, and one with skipped tests the
# tests' own messages (the skip reasons) and the [ SKIPPED ] lines.  After
# them comes one closing line, "tests: N passed, N failed, N skipped"; the
# exit status is non-zero on any failed test and on any binary that exits
# non-zero without a cmocka summary.  TEST_LOG (default: none) receives
# every binary's whole output, in the order of the arguments.
#
# JOBS (default 2) binaries run at once.  They are started longest first
# when TEST_TIMES names a file of "seconds binary" lines from an earlier
# run (this script rewrites it at the end), so a long one does not start
# last and run alone; without it they start in argument order.  The
# file then holds each binary's wall time of this run, slowest first.
#
# Scheduling is event-driven: xargs -P runs the binaries, and each one,
# when it ends, writes its index to a pipe that the printer reads.
#
# Each binary runs with TMPDIR set to a folder of its own (tu_mkdtemp and
# gpuidx's own temporary files go there): removed when the binary passes,
# moved to $TMPDIR/gpuidx-failed-XXXXXX (named in its output) when it
# does not, so a failure can be looked into and a passing run leaves
# nothing behind (runs used to leave every test's folder in /tmp).
set -u
JOBS=${JOBS:-2}
TEST_TIMES=${TEST_TIMES:-}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-tests-XXXXXX")
# other users may pass through (tests that drop to another user, like the
# read-only storage test, reach their files below it), not list it
chmod 711 "$dir"
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

if [ $# -eq 0 ]; then echo "tests: 0 passed, 0 failed, 0 skipped"; exit 0; fi
printf '%s\n' "$@" >"$dir/args"
# The start order: "index path" lines, longest known time first.
i=0
for t in "$@"; do
    i=$((i + 1))
    sec=0
    if [ -n "$TEST_TIMES" ] && [ -r "$TEST_TIMES" ]; then
        sec=$(awk -v t="$t" '$2 == t { print $1; exit }' "$TEST_TIMES")
    fi
    echo "${sec:-0} $i $t"
done | sort -s -k1,1 -g -r | cut -d' ' -f2- >"$dir/order"
n=$#

pass=0; fail=0; skip=0; bad=0
# Prints binary $1's line (and output when it failed or skipped) and adds
# its counts.
report() {
    t=$(sed -n "${1}p" "$dir/args")
    log=$dir/$1.out
    rc=$(cat "$dir/$1.rc")
    sec=$(cat "$dir/$1.sec" 2>/dev/null || echo "?")
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' "$log" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:/\1/p' "$log" | tail -1)
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
    line="$(basename "$t"): ${p:-0} passed"
    [ -n "$f" ] && line="$line, $f FAILED"
    [ -n "$s" ] && line="$line, $s skipped"
    echo "$line ($sec s)"
    if [ -n "$f" ] || { [ "$rc" -ne 0 ] && [ -z "$f" ]; }; then
        sed 's/^/    /' "$log"
    elif [ -n "$s" ]; then
        grep -v -e '^\[ RUN      \]' -e '^\[       OK \]' -e '^\[==========\]' \
            -e '^\[  PASSED  \]' -e '^ [0-9]* SKIPPED TEST' -e '^$' "$log" | sed 's/^/    /'
    fi
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
        echo "$t: exited $rc without a cmocka summary" >&2
        bad=$((bad + 1))
    fi
}

# One binary: $0 index, $1 path.  Writes $dir/$0.out, .rc and .sec, then
# the index on stdout (one short line: atomic on the pipe).
keep=${TMPDIR:-/tmp}
export dir keep
# shellcheck disable=SC2016
runner='s=$(date +%s.%N); t="$dir/tmp.$0"; mkdir -m 711 "$t";
        TMPDIR="$t" "$1" >"$dir/$0.out" 2>&1; rc=$?;
        if [ "$rc" -eq 0 ]; then rm -rf "$t";
        elif k=$(mktemp -d "$keep/gpuidx-failed-XXXXXX"); then
            mv "$t" "$k/" && echo "$1: its temporary files are kept in $k" >>"$dir/$0.out"; fi;
        echo "$rc" >"$dir/$0.rc";
        e=$(date +%s.%N); echo "$s $e" | awk "{ printf \"%.1f\\n\", \$2 - \$1 }" >"$dir/$0.sec";
        echo "$0"'
mkfifo "$dir/done"
xargs -P "$JOBS" -L 1 sh -c "$runner" <"$dir/order" >"$dir/done" &
while read -r k; do
    report "$k"
done <"$dir/done"
wait
fail=$((fail + bad))
echo "tests: $pass passed, $fail failed, $skip skipped"
if [ -n "${TEST_LOG:-}" ]; then
    i=0
    for t in "$@"; do
        i=$((i + 1))
        echo "== $t"
        cat "$dir/$i.out" 2>/dev/null
    done >"$TEST_LOG" 2>/dev/null || true
fi

if [ -n "$TEST_TIMES" ]; then
    i=0
    for t in "$@"; do
        i=$((i + 1))
        [ -e "$dir/$i.sec" ] && echo "$(cat "$dir/$i.sec") $t"
    done | sort -g -r >"$dir/times"
    cp "$dir/times" "$TEST_TIMES" 2>/dev/null || true
fi
[ "$fail" -eq 0 ]
