#!/bin/sh
# tools/demo.sh -- `make demo`: run the whole pipeline on the demo market.
# PLACEHOLDER until the demo market (gpuidx simulate) is built: it says so
# and fails rather than pretending.
set -eu
echo "make demo: the demo market generator (gpuidx simulate) is not built yet;" >&2
echo "           nothing was run.  'make test' runs what exists." >&2
exit 1
