#!/bin/sh
# tools/lint-tests.sh -- source checks that make test runs before the tests.
#
# Every shell command a test builds must quote the binary under test:
# "$GPUIDX_BIN" unquoted breaks in a clone whose path has a space (CI's
# second clone, .ci/run), and only there.  Prints each offending line as
# file:line: text and exits 1.  Comment lines are not commands.
set -eu
cd "$(dirname "$0")/.."
bad=$(grep -nE '\$GPUIDX_BIN' tests/*.c tests/*.h |
      grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*|//)' |
      grep -vE '\\"\$GPUIDX_BIN\\"' | grep -v 'getenv' || true)
if [ -n "$bad" ]; then
    printf '%s\n' "$bad" >&2
    echo "tools/lint-tests.sh: \$GPUIDX_BIN unquoted in a test's shell command above (a path with a space breaks it): write \\\"\$GPUIDX_BIN\\\"" >&2
    exit 1
fi
