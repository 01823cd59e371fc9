#!/usr/bin/env bash
# tests/fuzz/smoke.sh [SECONDS]: runs every fuzz target (build/fuzz/fuzz_*,
# `ninja fuzz`) for SECONDS (default $TP_FUZZ_SECONDS or 10) on its seeds
# (tests/fuzz/seeds.sh) and the corpus earlier runs grew in
# build/fuzz/corpus/NAME, two at a time (the machines have 2 cores). One
# TAP line per target with its executions; a crash, a leak, a sanitizer
# report or a timeout fails it, with the reproducer kept in
# build/fuzz/artifacts/ and the log in build/fuzz/logs/NAME.log.
# tests/fuzz/README.md has the long run.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-${TP_FUZZ_SECONDS:-10}}
shopt -s nullglob
targets=(build/fuzz/fuzz_*)
if [ ${#targets[@]} = 0 ]; then
    echo "1..0 # SKIP no fuzz targets built: ./configure found no clang with libFuzzer (apt-get install clang-15)"
    exit 0
fi
seeds=build/fuzz/seeds
tests/fuzz/seeds.sh "$seeds" || exit 2
mkdir -p build/fuzz/logs build/fuzz/artifacts
export TP_FUZZ_RUN=$PWD/$seeds/run TP_FUZZ_SCHEMA=$PWD/docs/manifest.schema.json
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
run() { # NAME: one target in the background
    local name=$1 kind=${1#fuzz_}
    mkdir -p "build/fuzz/corpus/$kind"
    "build/fuzz/$name" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -max_len=131072 \
        -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$name-" \
        "build/fuzz/corpus/$kind" "$seeds/$kind" >"build/fuzz/logs/$name.log" 2>&1
    echo $? >"build/fuzz/logs/$name.rc"
}
n=0 failed=0
echo "1..${#targets[@]}"
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    for t in "${targets[@]:i:2}"; do run "$(basename "$t")" & done
    wait
done
for t in "${targets[@]}"; do
    name=$(basename "$t")
    n=$((n + 1))
    rc=$(cat "build/fuzz/logs/$name.rc")
    execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "build/fuzz/logs/$name.log" | tail -1)
    if [ "$rc" = 0 ]; then
        echo "ok $n - $name: ${execs:-?} executions in ${secs} s, no finding"
    else
        failed=$((failed + 1))
        echo "not ok $n - $name: exit $rc after ${execs:-?} executions (build/fuzz/logs/$name.log)"
        grep -E "ERROR|runtime error|SUMMARY|Test unit written" "build/fuzz/logs/$name.log" | head -5 | sed 's/^/#   /'
    fi
done
[ "$failed" = 0 ]
