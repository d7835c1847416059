#!/bin/sh
# tools/run-tests.sh -- run cmocka test binaries and sum their results.
#
# Each binary prints cmocka's own summary; this adds one closing line,
# "tests: N passed, N failed, N skipped", and exits non-zero on any failure.
set -u
pass=0; fail=0; skip=0; bad=0
log=$(mktemp)
for t in "$@"; do
    "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' "$log" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:/\1/p' "$log" | tail -1)
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
        echo "$t: exited $rc without a cmocka summary" >&2
        bad=$((bad + 1))
    fi
done
rm -f "$log"
fail=$((fail + bad))
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
