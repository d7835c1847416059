#!/bin/sh
# tools/fuzz.sh -- run the libFuzzer targets (make fuzz, make fuzz-run).
#
#   sh tools/fuzz.sh corpus BIN...        each target once over its seed
#                                         corpus fuzz/corpus/<target>/
#                                         (every past finding is there)
#   sh tools/fuzz.sh run SECONDS BIN...   fuzz each target for SECONDS, one
#                                         after the other, one job each;
#                                         new inputs go to build-fuzz/corpus/
#                                         <target>/, findings to build-fuzz/
#                                         findings/, figures to build-fuzz/
#                                         fuzz-report.txt
# Exits non-zero at the first target that finds something.
set -eu
# the targets that read a path rewrite a file per input: memory, not disk
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
mode=$1; shift
secs=0
if [ "$mode" = run ]; then secs=$1; shift; fi
report=build-fuzz/fuzz-report.txt
[ "$mode" = run ] && : >"$report"
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
    echo "$line" >>"$report"
    if [ "$rc" -ne 0 ]; then
        tail -40 build-fuzz/$name.log >&2
        echo "fuzz: $name found something: build-fuzz/findings/$name-*" >&2
        exit 1
    fi
done
