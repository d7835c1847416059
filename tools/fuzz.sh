#!/bin/sh
# tools/fuzz.sh -- run the libFuzzer targets (make fuzz, make fuzz-run).
#
#   sh tools/fuzz.sh corpus BIN...        each target once over its seed
#                                         corpus fuzz/corpus/<target>/
#                                         (every past finding is there)
#   sh tools/fuzz.sh run SECONDS BIN...   fuzz each target for SECONDS, one
#                                         job each, FUZZ_JOBS targets at a
#                                         time (default 1: one after the
#                                         other); new inputs go to
#                                         build-fuzz/corpus/<target>/,
#                                         findings to build-fuzz/findings/,
#                                         figures to build-fuzz/
#                                         fuzz-report.txt (in the order of
#                                         the arguments)
# Exits non-zero when a target finds something (corpus: at the first; run:
# after the targets running beside it end, naming each that found).
set -eu
# the targets that read a path rewrite a file per input: memory, not disk
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
mode=$1; shift
secs=0
if [ "$mode" = run ]; then secs=$1; shift; fi
report=build-fuzz/fuzz-report.txt
[ "$mode" = run ] && : >"$report" && rm -f build-fuzz/*.line build-fuzz/*.rc
# run mode: one target for $secs seconds; its line into build-fuzz/<name>.line,
# its exit status into build-fuzz/<name>.rc
fuzz_one() {
    bin=$1
    name=$(basename "$bin")
    seeds=fuzz/corpus/$name
    work=build-fuzz/corpus/$name
    mkdir -p "$work" build-fuzz/findings
    start=$(date +%s)
    set +e
    "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix=build-fuzz/findings/$name- "$work" "$seeds" \
        >build-fuzz/$name.log 2>&1
    rc=$?
    set -e
    end=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' build-fuzz/$name.log | tail -1)
    cov=$(grep -o 'cov: [0-9]*' build-fuzz/$name.log | tail -1)
    line="$name: $((end - start)) s, ${execs:-?} executions, $cov, corpus $(ls "$work" | wc -l), exit $rc"
    echo "fuzz: $line"
    echo "$line" >build-fuzz/$name.line
    echo "$rc" >build-fuzz/$name.rc
}
jobs=${FUZZ_JOBS:-1}
running=0
for bin in "$@"; do
    name=$(basename "$bin")
    seeds=fuzz/corpus/$name
    [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds" >&2; exit 1; }
    if [ "$mode" = corpus ]; then
        "$bin" -runs=0 -artifact_prefix=build-fuzz/$name- "$seeds" >build-fuzz/$name.log 2>&1 || {
            cat build-fuzz/$name.log >&2
            echo "fuzz: $name fails on its corpus" >&2
            exit 1
        }
        n=$(ls "$seeds" | wc -l)
        echo "fuzz: $name: $n corpus inputs, clean"
        continue
    fi
    fuzz_one "$bin" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
        # a finding stops the run after the targets beside it
        cat build-fuzz/*.rc | grep -qv '^0$' && break
    fi
done
[ "$mode" = run ] || exit 0
wait
found=0
for bin in "$@"; do
    name=$(basename "$bin")
    [ -f build-fuzz/$name.rc ] || continue # not run: an earlier target found something
    cat build-fuzz/$name.line >>"$report"
    if [ "$(cat build-fuzz/$name.rc)" -ne 0 ]; then
        tail -40 build-fuzz/$name.log >&2
        echo "fuzz: $name found something: build-fuzz/findings/$name-*" >&2
        found=1
    fi
done
exit $found
