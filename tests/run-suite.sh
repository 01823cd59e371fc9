#!/usr/bin/env bash
# `ninja test`: every TAP test with prove (each with its wall time), the log
# kept in build/test/prove.log and the counts in build/test/summary.json.
# Two tests at a time (TP_TEST_JOBS): the tests are serial but for the
# OpenMP references, and each keeps its files in its own mktemp directory,
# so on CI's two cores the second core no longer idles through the long
# serial ones.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/test
shopt -s nullglob
set -o pipefail
jobs=${TP_TEST_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "TP_TEST_JOBS: '$jobs' is not a positive whole number" >&2; exit 2; }
prove --timer -j "$jobs" --exec '' build/tests/*.t tests/*.t 2>&1 | tee build/test/prove.log
status=$?
line=$(grep -E '^Files=[0-9]+, Tests=[0-9]+' build/test/prove.log | tail -1)
files=$(echo "$line" | sed -nE 's/^Files=([0-9]+).*/\1/p')
tests=$(echo "$line" | sed -nE 's/.*Tests=([0-9]+).*/\1/p')
secs=$(echo "$line" | sed -nE 's/.* ([0-9]+) wallclock secs.*/\1/p')
result=$(grep -E '^Result: ' build/test/prove.log | tail -1 | cut -d' ' -f2)
printf '{"files": %s, "tests": %s, "wallclock_seconds": %s, "result": "%s", "log": "build/test/prove.log"}\n' \
    "${files:-0}" "${tests:-0}" "${secs:-0}" "${result:-FAIL}" > build/test/summary.json
exit $status
