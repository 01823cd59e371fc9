#!/usr/bin/env bash
# Fault isolation (harness/tp_supervise.h) through the real supervisor of
# tp_harness_main, on the emulated device: kernels planted to crash the
# process (SIGSEGV), lose the context (a sticky illegal address), fail a
# launch (an ordinary error) and hang. Each is recorded as its case's
# outcome, the other cases keep their normal verdicts, results.json is
# whole and valid, the watchdog fires within its limit, a supervisor
# killed midway leaves results.partial.json and no process behind.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate py=/usr/bin/python3
. tests/tap.sh

plan=build/gen/gemm_fwd.plan.json
cases=(normal_64 ragged_100x37x250 tiny_1x1x1 wide_256 cancel_128x64x512 special_64x64x32 ksplit_32x32x8192)
sel=()
for c in "${cases[@]}"; do sel+=(--case "$c"); done
# no process of this test may outlive it: every child has the run's
# directory on its command line
no_orphans() { ! pgrep -f -- "$tmp/$1" >/dev/null; }

# the reference: the same cases, no planted fault, in the harness's own process
"$emu" "$plan" "$tmp/clean" "${sel[@]}" --in-process >/dev/null 2>"$tmp/clean.log"
ok $? "the clean run passes every case (--in-process, no isolation)"

start=$(date +%s.%N)
"$emu" "$plan" "$tmp/f" "${sel[@]}" --case-timeout 2 --fault lost=ragged_100x37x250 --fault segv=tiny_1x1x1 \
    --fault launch=wide_256 --fault hang=cancel_128x64x512 --fault abort=ksplit_32x32x8192 >"$tmp/f.out" 2>"$tmp/f.log"
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
[ $rc = 2 ]; ok $? "a run with faulting and hanging cases exits 2 (an error), not a crash (exit $rc)"
[ "$(echo "$secs < 10" | bc)" = 1 ]; ok $? "the run ends in ${secs%.*} s: the hanging case is cut by its 2 s watchdog"

# case NAME PYTHON-CONDITION-ON-r: one check on a record of $tmp/f/results.json
rec() {
    $py - "$tmp/f/results.json" "$tmp/clean/results.json" "$1" "$2" <<'EOF'
import json, sys
res, clean, name, cond = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
r = [c for c in res["cases"] if c.get("case") == name]
c = [c for c in clean["cases"] if c.get("case") == name]
sys.exit(0 if len(r) == 1 and eval(cond, {"r": r[0], "c": c[0] if c else None}) else 1)
EOF
}
$py -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit([c["case"] for c in r["cases"]] != sys.argv[2:])' \
    "$tmp/f/results.json" "${cases[@]}"
ok $? "results.json is valid JSON with one record per selected case, in the plan's order"
keys='sorted(r) == ["by", "case", "reason", "verdict"] and r["verdict"] == "error"'
rec ragged_100x37x250 "$keys and r['by'] == 'fault' and 'illegal memory access' in r['reason']"
ok $? "the case that lost the context is an error by fault, with the runtime's error text"
rec tiny_1x1x1 "$keys and r['by'] == 'fault' and 'signal 11' in r['reason']"
ok $? "the case whose process crashed is an error by fault naming the signal"
rec cancel_128x64x512 "$keys and r['by'] == 'timeout' and r['reason'] == 'no result within 2 s (watchdog)'"
ok $? "the hanging case is an error by timeout: no result within 2 s (watchdog)"
rec ksplit_32x32x8192 "$keys and r['by'] == 'fault' and r['reason'].startswith('the harness process running the case was killed by signal 6 (Aborted); its last output: Memory access fault by GPU node-1 (emulated)')"
ok $? "a process that aborts after printing why is an error by fault with the signal and its last line"
grep -q "^Memory access fault by GPU node-1 (emulated)" "$tmp/f.log"
ok $? "what the case's process writes on stderr still reaches the harness's stderr"
rec wide_256 "$keys and r['by'] == 'device' and 'invalid configuration' in r['reason']"
ok $? "an ordinary launch error (the context kept) is an error by device, in the same process"
rec normal_64 "r == c and r['verdict'] == 'pass'"
ok $? "the case before the faults has its normal record, identical to the clean run's"
rec special_64x64x32 "r == c and r['verdict'] == 'pass'"
ok $? "the case after the hang (in a fresh process) has its normal record, identical to the clean run's"
# numbered out of the plan's cases (the run selects 7 of them)
total=$($py -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$plan")
grep -q "^\[4/$total\] gemm_fwd/wide_256: error: kernel launch: invalid configuration" "$tmp/f.log" &&
    grep -q "^\[5/$total\] gemm_fwd/cancel_128x64x512: error: no result within 2 s" "$tmp/f.log"
ok $? "the console lines are numbered through the whole run, across processes"
[ -z "$(find "$tmp/f" -name 'results.partial.json' -o -name '*.tmp.*')" ] && [ -s "$tmp/f/results.tap" ] &&
    [ "$(grep -c '^not ok' "$tmp/f/results.tap")" = 5 ]
ok $? "no partial or temporary file is left; results.tap has the 5 errors"
no_orphans f; ok $? "no process of the run is left"
# (exit 1: the plan expects every case to pass, so the five errors are
# unexpected outcomes; no disagreement)
"$tp" replay "$tmp/f" >"$tmp/f.replay" 2>&1
[ $? = 1 ] && [ "$(grep -c 're-derived' "$tmp/f.replay")" -ge 2 ] && ! grep -q DISAGREEMENT "$tmp/f.replay" &&
    grep -q "every verdict re-derived but 5 error(s) by device, fault or timeout, the GPU's word; outcomes: 5 unexpected" "$tmp/f.replay"
ok $? "replay re-derives the cases that ran, accepts the five errors as the GPU's word and names them as unexpected"

# the contract's watchdog: timeout_s of a case, in the plan
sed 's/"name": "cancel_128x64x512",/&\n      "timeout_s": 1,/' "$plan" >"$tmp/t.plan.json"
"$emu" "$tmp/t.plan.json" "$tmp/t" --case cancel_128x64x512 --case special_64x64x32 \
    --fault hang=cancel_128x64x512 >/dev/null 2>"$tmp/t.log"
[ $? = 2 ] && grep -q '"reason": "no result within 1 s (watchdog)"' "$tmp/t/results.json" &&
    grep -q '"case": "special_64x64x32"' "$tmp/t/results.json"
ok $? "a case's timeout_s in the plan sets its watchdog (1 s)"
sed 's/"name": "cancel_128x64x512",/&\n      "timeout_s": -1,/' "$plan" >"$tmp/bad.plan.json"
"$emu" "$tmp/bad.plan.json" "$tmp/bad" >/dev/null 2>"$tmp/bad.log"
[ $? = 2 ] && grep -q 'timeout_s is -1; expected a number of seconds in (0, 86400\]' "$tmp/bad.log"
ok $? "a timeout_s that is not a positive number of seconds is refused in one line"
"$emu" "$plan" "$tmp/bad2" --case-timeout 0 >/dev/null 2>"$tmp/bad2.log"
[ $? = 2 ] && grep -q -- '--case-timeout 0: expected a number of seconds in (0, 86400\]' "$tmp/bad2.log"
ok $? "--case-timeout 0 is refused in one line"

# the verdict corpus counts a wrong variant killed by its case in error,
# as for gemm_fwd_wild_store (a fault) and gemm_fwd_stalled_tile (a hang)
"$emu" "$plan" "$tmp/vf" --case normal_64 --case ragged_100x37x250 --fault lost=ragged_100x37x250 >/dev/null 2>&1
for d in vf t; do
    sed -i "0,/^{/s//{\n  \"variant\": {\"name\": \"gemm_fwd_emu_$d\", \"expect\": \"wrong\", \"what\": \"test\", \"contract\": \"gemm_fwd\"},/" "$tmp/$d/plan.json"
done
"$tp" verdicts "$tmp/vf" "$tmp/t" 2>&1 | grep -q "^# tolproof: 0 false alarm(s) on 0 correct variant(s), 2 kill(s) of 2 wrong variant(s)"
ok $? "tolproof verdicts counts wrong variants whose cases fault or hang as killed"

# a supervisor killed midway: the finished cases are kept, nothing is truncated, no child is left
"$emu" "$plan" "$tmp/k" --case normal_64 --case tiny_1x1x1 --case cancel_128x64x512 --case-timeout 60 \
    --fault hang=cancel_128x64x512 >/dev/null 2>"$tmp/k.log" &
sup=$!
for _ in $(seq 100); do grep -q "tiny_1x1x1" "$tmp/k.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
{ kill -KILL $sup; wait $sup; } 2>/dev/null
sleep 0.3
no_orphans k; ok $? "a supervisor killed with SIGKILL leaves no child running (the hung one dies with it)"
$py -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not ("partial" in r and [c["case"] for c in r["cases"]] == ["normal_64", "tiny_1x1x1"]))' \
    "$tmp/k/results.partial.json" && [ ! -e "$tmp/k/results.json" ]
ok $? "it leaves results.partial.json (valid, marked partial) with the 2 finished cases, and no results.json"

tap_end
