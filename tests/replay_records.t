#!/usr/bin/env bash
# Replay re-derives what results.json holds and checks that it holds the
# whole run: every case of the plan (or of "selected_cases", which a run
# with --case records) exactly once, no record it cannot re-derive. A
# results.json of [], {} or no cases, a deleted, duplicated or extra case,
# an error record other than a fault or a timeout, and a refusal by the
# harness or for an --input file all fail the replay, each with one clear
# line. An error by "fault" or "timeout" with its reason (a kernel that
# faulted or hung) is the GPU's word: replay accepts it on an ok line that
# says so and counts it apart, and summary calls its contract "not met". `tolproof summary` never
# crashes on a missing, integer or null verdict and never calls a run with
# errors (faults and timeouts included), or with no case judged, "met"; it says when a run was of some
# cases only and when cases ran on supplied inputs.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh
plan=build/gen/gemm_fwd.plan.json

"$emu" "$plan" "$tmp/good" --case tiny_1x1x1 --case normal_64 >/dev/null 2>&1
ok $? "an emulated run of two cases"
grep -A3 '"selected_cases"' "$tmp/good/results.json" | tr -d ' \n' | grep -q '\["normal_64","tiny_1x1x1"\]'
ok $? "its results.json lists them as selected_cases, in plan order"
"$tp" replay "$tmp/good" >/dev/null
ok $? "it replays"

# variant NAME PYTHON: a copy of the run whose results.json r is edited by PYTHON
variant() {
    rm -rf "$tmp/$1" && cp -r "$tmp/good" "$tmp/$1" &&
        /usr/bin/python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
$2
json.dump(r, open(sys.argv[1], 'w'), indent=2)" "$tmp/$1/results.json"
}
# fails NAME STATUS PATTERN: replay of $tmp/NAME exits STATUS and says PATTERN
fails() {
    "$tp" replay "$tmp/$1" >"$tmp/$1.log" 2>&1
    local rc=$?
    [ $rc = "$2" ] && grep -q -- "$3" "$tmp/$1.log" && grep -q "DISAGREEMENT" "$tmp/$1.log"
    ok $? "$1: replay exits $rc: $(grep -o -- "$3.*" "$tmp/$1.log" | head -1 | cut -c1-80)"
}

variant array "r = []"
fails array 2 "not a run's results (an object with a \"cases\" array)"
variant object "r = {}"
fails object 2 "not a run's results"
variant no_cases "r['cases'] = []"
fails no_cases 1 "case normal_64 of the selected cases has no record"
variant duplicate "r['cases'].append(r['cases'][0])"
fails duplicate 1 "case normal_64 is recorded twice"
variant extra "r['cases'].append(dict(r['cases'][0], case='ragged_100x37x250'))"
fails extra 1 'case ragged_100x37x250 is recorded but is not among "selected_cases"'
variant missing "r['cases'] = r['cases'][:1]"
fails missing 1 "case tiny_1x1x1 of the selected cases has no record"
variant unselected "del r['selected_cases']"
fails unselected 1 "case cancel_128x64x512 of the plan has no record"
variant bad_selection "r['selected_cases'].append('nope')"
fails bad_selection 2 '"selected_cases" is not a list of distinct case names of plan.json'
variant error_launch "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'error', 'by': 'launch'}"
fails error_launch 1 'an error record with "by": "launch" and no reason, which no harness writes'
variant error_harness "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'error', 'by': 'harness', 'reason': 'illegal address'}"
fails error_harness 1 "recorded error by harness (illegal address): it is the harness's word"
variant refused_fault "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'refused', 'by': 'fault', 'reason': 'illegal address'}"
fails refused_fault 1 'a refused record with "by": "fault" and a reason, which no harness writes'
variant fault_no_reason "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'error', 'by': 'fault'}"
fails fault_no_reason 1 'an error record with "by": "fault" and no reason, which no harness writes'
variant fault_outputs "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'error', 'by': 'fault', 'reason': 'x', 'outputs': {}}"
fails fault_outputs 1 'an error record with key "outputs", which no harness writes there'
variant refused_input "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'refused', 'by': 'input', 'reason': 'A: bad'}"
fails refused_input 1 "recorded refused by input (A: bad): the --input file was not kept"
variant refused_harness "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'refused', 'by': 'harness', 'reason': 'grid'}"
fails refused_harness 1 "recorded refused by harness (grid)"
variant refused_outputs "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'refused', 'by': 'plan', 'reason': 'x', 'outputs': {}}"
fails refused_outputs 1 'a refused record with key "outputs", which no harness writes there'

# errors by device, fault or timeout (a kernel that faulted or hung, fault isolation):
# the GPU's word, accepted as such, said on their lines and counted apart
variant fault "r['cases'][1] = {'case': 'tiny_1x1x1', 'verdict': 'error', 'by': 'fault',
                   'reason': 'an illegal memory access was encountered'}"
variant timeout "r['cases'][0] = {'case': 'normal_64', 'verdict': 'error', 'by': 'timeout',
                     'reason': 'no end after the 10 s watchdog (--case-timeout)'}"
# (the plan expects a pass of both cases, so replay exits 1 for the
# expected outcomes, not for the re-derivation)
"$tp" replay "$tmp/fault" "$tmp/timeout" >"$tmp/gpu_word.log" 2>&1
[ $? = 1 ] && ! grep -q DISAGREEMENT "$tmp/gpu_word.log" &&
    grep -q "^not ok - $tmp/fault/tiny_1x1x1: expected pass, got error$" "$tmp/gpu_word.log"
ok $? "errors by fault and by timeout re-derive; where a pass was expected they are unexpected outcomes (exit 1)"
grep -q "^ok - $tmp/fault/tiny_1x1x1: recorded error by fault (an illegal memory access was encountered): the GPU's word, not re-derived" "$tmp/gpu_word.log" &&
    grep -q "^ok - $tmp/timeout/normal_64: recorded error by timeout (no end after the 10 s watchdog (--case-timeout)): the GPU's word, not re-derived" "$tmp/gpu_word.log"
ok $? "each on an ok line that says it is the GPU's word, not re-derived"
grep -q "^# replayed 4 case(s) in 2 run(s): every verdict re-derived but 2 error(s) by device, fault or timeout, the GPU's word; outcomes: 2 unexpected$" "$tmp/gpu_word.log"
ok $? "the last line counts them apart"

# a case the plan refuses is never launched, so it cannot fault or hang
rm -rf "$tmp/never_launched" && cp -r recorded/nvidia-h200/layernorm_bwd_params "$tmp/never_launched"
/usr/bin/python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
for c in r['cases']:
    if c['verdict'] == 'refused':
        c.update(verdict='error', by='timeout', reason='x')
json.dump(r, open(sys.argv[1], 'w'), indent=2)" "$tmp/never_launched/results.json"
fails never_launched 1 "recorded error by timeout (x), but the plan refuses the case"

# the probe's forgery: a recorded violated run with its failing cases deleted
rm -rf "$tmp/pilot" && cp -r recorded/nvidia-h200/embedding_bwd_pilot "$tmp/pilot"
/usr/bin/python3 -c "import json, shutil, sys
r = json.load(open(sys.argv[1] + '/results.json'))
for c in r['cases']:
    if c['verdict'] == 'fail':
        shutil.rmtree(sys.argv[1] + '/outputs/' + c['case'])
r['cases'] = [c for c in r['cases'] if c['verdict'] != 'fail']
json.dump(r, open(sys.argv[1] + '/results.json', 'w'), indent=2)" "$tmp/pilot"
fails pilot 1 "case uniform_4096x256 of the plan has no record"

# ---- summary
# summary_says NAME PATTERN: tolproof summary of $tmp/NAME exits 0 and its row says PATTERN
summary_says() {
    "$tp" summary "$tmp/$1" >"$tmp/$1.sum" 2>&1
    local rc=$?
    [ $rc = 0 ] && tail -1 "$tmp/$1.sum" | grep -q -- "$2"
    ok $? "summary, $1: $(tail -1 "$tmp/$1.sum" | grep -o -- "$2")"
}
summary_says good "| met on the selected cases | - | as expected |$"
variant no_verdict "del r['cases'][0]['verdict']"
summary_says no_verdict "| \*\*not shown\*\*: 1 case(s) without a re-derivable verdict |"
variant int_verdict "r['cases'][0]['verdict'] = 3"
summary_says int_verdict "| \*\*not shown\*\*: 1 case(s) without a re-derivable verdict |"
variant null_verdict "r['cases'][0]['verdict'] = None"
summary_says null_verdict "| \*\*not shown\*\*: 1 case(s) without a re-derivable verdict |"
variant all_error "r['cases'] = [{'case': c['case'], 'verdict': 'error', 'by': 'harness', 'reason': 'x'} for c in r['cases']]"
summary_says all_error "| \*\*not shown\*\*: 2 case(s) without a re-derivable verdict |"
summary_says fault "| \*\*not met\*\*: 1 case(s) in error (device, fault or timeout: the GPU's word) |"
variant all_fault "r['cases'] = [{'case': c['case'], 'verdict': 'error', 'by': 'fault', 'reason': 'x'} for c in r['cases']]"
summary_says all_fault "| \*\*not met\*\*: 2 case(s) in error (device, fault or timeout: the GPU's word) |"
variant fault_and_harness "r['cases'] = [{'case': 'normal_64', 'verdict': 'error', 'by': 'timeout', 'reason': 'x'},
                                 {'case': 'tiny_1x1x1', 'verdict': 'error', 'by': 'harness', 'reason': 'x'}]"
summary_says fault_and_harness "| \*\*not met\*\*: 1 case(s) in error (device, fault or timeout: the GPU's word); 1 case(s) without a re-derivable verdict |"
variant all_refused "r['cases'] = [{'case': c['case'], 'verdict': 'refused', 'by': 'plan', 'reason': 'x'} for c in r['cases']]"
summary_says all_refused "| \*\*not shown\*\*: no case judged |"
for v in array object; do
    "$tp" summary "$tmp/$v" >/dev/null 2>"$tmp/$v.err"
    [ $? = 2 ] && grep -q "not a run's results" "$tmp/$v.err"
    ok $? "summary of a results.json that is $(cat "$tmp/$v/results.json" | tr -d '\n'): exit 2, said"
done
"$emu" "$plan" "$tmp/seeded" --case normal_64 --dump-inputs >/dev/null 2>&1 &&
    "$emu" "$plan" "$tmp/fed" --case normal_64 --input A="$tmp/seeded/outputs/normal_64/input_A.npy" >/dev/null 2>&1
ok $? "a run on a supplied input"
summary_says fed "| met on the selected cases, 1 case(s) on supplied inputs |"
tap_end
