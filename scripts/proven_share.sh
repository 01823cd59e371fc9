#!/usr/bin/env bash
# How much of the code that decides verdicts is WP-proven, as executed:
# builds a copy of HEAD with gcov's line counting, replays every recorded
# run through it (the CPU path from each case to its admitted intervals
# and the element check), and counts the executed lines of the
# verdict-deciding files (scripts/proven_share.py says which), proven
# (oracles/*/proven/) and not. About 18 minutes on 2 cores (at efb3e15;
# 6 when fewer runs were recorded).
#
#   scripts/proven_share.sh [WORKDIR]      (default: a new temporary folder)
#
# The copy differs from HEAD in two ways, both for gcov only: configure
# adds --coverage to the compile and link flags, and the processes that
# end with _exit (the forked case workers of harness/tp_supervise.c, the
# command's fast exit) end with exit instead, which writes gcov's counts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
[ -e "$work/cov" ] && { echo "proven_share.sh: $work/cov exists; give a new WORKDIR" >&2; exit 2; }
git clone -q "$root" "$work/cov"
cd "$work/cov"
sed -i 's/echo "cflags = -std=c11 -O2 /echo "cflags = -std=c11 -O2 --coverage /; s/echo "ldlibs = /echo "ldlibs = --coverage /' configure
sed -i 's/\b_exit(/exit(/' harness/tp_supervise.c cli/cmd_check.c cli/tp_guard.c
./configure > /dev/null
grep -q -- '--coverage' config.ninja || { echo "proven_share.sh: configure no longer takes the flags this script adds" >&2; exit 1; }
echo "proven_share.sh: building $work/cov with --coverage" >&2
ninja build/tolproof plans > build.log 2>&1 || { tail -20 build.log >&2; exit 1; }
# only the replay's counts: the build ran tools of its own (the registry)
find build/obj -name '*.gcda' -delete
echo "proven_share.sh: replaying recorded/ through it" >&2
/usr/bin/python3 gen/tpgen.py replay -o build/replay/summary.json --tolproof build/tolproof > replay.log 2>&1 ||
    { tail -20 replay.log >&2; exit 1; }
/usr/bin/python3 "$root/scripts/proven_share.py" "$work/cov"
