#!/usr/bin/env bash
# A stub "GPU" run of every recorded contract, through the code `ninja run`
# runs on a GPU host: gen/steps.py run_harness (tpgen.py run-harness) runs
# a harness, here build/tests/tool_playback, which is tp_harness_main (the
# whole runtime: case building, launch shape and limits, checker, run
# directory, exit status of expected outcomes) on a host device whose
# launch writes the recorded GPU run's outputs
# (recorded/nvidia-h200/NAME/outputs) into the output buffers. With the
# current contracts' plans (their cases' expect = ...), every contract
# exits 0 and each case record is the recorded one; a wrong expectation, an
# edited output and a missing output each give the documented non-zero exit
# and name the case, expected and got, in the log and in the step's JSON.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof pb=$PWD/build/tests/tool_playback py=/usr/bin/python3 rec=recorded/nvidia-h200
. tests/tap.sh

runs=("$rec"/*/)
if [ ! -d "$rec" ] || [ ${#runs[@]} -eq 0 ]; then
    echo "1..0 # SKIP no recorded GPU run under $rec"
    exit 0
fi

# step PLAN RUN_DIR NAME [harness options]: `ninja run`'s step on the
# playback harness of PLAN fed by RUN_DIR, into $tmp/NAME (log: NAME.log,
# step JSON: NAME.json); its exit status
step() {
    local plan=$1 from=$2 name=$3
    shift 3
    printf '#!/bin/sh\nexec "%s" "%s" "%s" %s "$@"\n' "$pb" "$plan" "$from" "$*" >"$tmp/harness_$name"
    chmod +x "$tmp/harness_$name"
    $py gen/tpgen.py run-harness "$tmp/harness_$name" --contract "$name" --backend cuda \
        --status "$tmp/$name.json" --out "$tmp/$name" >"$tmp/$name.log" 2>&1
}
# same_cases RUN RECORDED: every case record of RUN is the recorded one (a
# refusal's reason quotes the current contract's requirement message, which
# may have been reworded since the recording: its case, verdict and "by";
# the GPU exact provider's record is the device's word, not re-derived)
same_cases() {
    $py -c 'import json, sys
a, b = (json.load(open(d + "/results.json"))["cases"] for d in sys.argv[1:])
for r in a + b:
    if r.get("verdict") == "refused":
        r.pop("reason", None)
    # who computed the exact sums on the GPU host (its cross-check, seed and
    # seconds); a CPU re-derivation has no provider (cli/tp_replay.c drops it too)
    r.pop("exact_provider", None)
sys.exit(a != b)' "$1" "$2"
}
# unexpected NAME JSON: the step's JSON lists exactly these unexpected cases
unexpected() {
    $py -c 'import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(s.get("unexpected") != json.loads(sys.argv[2]))' "$tmp/$1.json" "$2"
}
# edit_expect PLAN_IN PLAN_OUT CASE=WORD...: a plan with edited expectations
edit_expect() {
    $py -c 'import json, sys
p = json.load(open(sys.argv[1]))
want = dict(a.split("=") for a in sys.argv[3:])
for c in p["cases"]:
    c["expect"] = want.pop(c["name"], c["expect"])
assert not want, want
json.dump(p, open(sys.argv[2], "w"), indent=2)' "$@"
}

$pb build/gen/gemm_fwd.plan.json "$rec/gemm_fwd" --help >"$tmp/help.txt"
grep -q "every case run has its expected outcome" "$tmp/help.txt" && grep -q "3 no GPU" "$tmp/help.txt"
ok $? "the harness --help documents the exit codes (0 expected outcomes ... 3 no GPU)"

# ---- every recorded contract, with the current contracts' expectations
played=()
for r in "${runs[@]}"; do
    c=$(basename "$r")
    # the playback's "launch" decodes the recorded outputs, which computes
    # the exact values (.tpr): minutes on 2 cores for the 4 million elements
    # of softmax_xent_fused's long rows, past the GPU's 60 s watchdog
    step "build/gen/$c.plan.json" "$rec/$c" "$c" --case-timeout 3600
    rc=$?
    [ $rc = 0 ] && grep -q '"status": "as expected"' "$tmp/$c.json" && unexpected "$c" '[]' &&
        grep -q "^$c: [0-9]* case(s), as expected" "$tmp/$c.log"
    ok $? "$c: ninja run's step on the recorded outputs exits 0, every case as expected (exit $rc)"
    same_cases "$tmp/$c" "$r"
    ok $? "$c: every case record is the recorded one"
    played+=("$tmp/$c")
done
grep -q "^embedding_bwd_pilot: 11 case(s), as expected (9 violated, 2 refused)$" "$tmp/embedding_bwd_pilot.log"
ok $? "the embedding pilot's violations and refusal are counted as expected"
grep -q '"name": "playback of recorded/nvidia-h200/gemm_fwd"' "$tmp/gemm_fwd/results.json"
ok $? "results.json names the playback as the device: no one takes it for a GPU run"
# A played run re-derives under tolproof replay like a recorded one. Shown on
# four (GEMM, bfloat16 and the embeddings' violations and refusals): every
# played run's cases were compared above with the recorded run's, which
# `ninja replay` re-derives, so replaying all of them again would only
# repeat that derivation (minutes for softmax_xent_fused's long rows).
replayed=("$tmp/gemm_fwd" "$tmp/embedding_bwd_pilot" "$tmp/embedding_fwd" "$tmp/rmsnorm_fwd_bf16")
"$tp" replay --quiet "${replayed[@]}" >"$tmp/replay.log"
ok $? "tolproof replay re-derives the played runs of gemm_fwd, embedding_bwd_pilot, embedding_fwd and rmsnorm_fwd_bf16, each case with its expected outcome (from its plan.json)"
"$tp" summary "$tmp/embedding_bwd_pilot" "$tmp/embedding_fwd" >"$tmp/summary.md"
grep -q "| \*\*violated\*\* | .* | as expected (9 violated, 2 refused) |$" "$tmp/summary.md" &&
    grep -q "| met | - | as expected |$" "$tmp/summary.md"
ok $? "tolproof summary tells expected violations and refusals apart"

# ---- deliberately wrong expectations: the test can fail
edit_expect build/gen/gemm_bwd_a.plan.json "$tmp/gemm_bwd_a_wrong.json" refused_m100=pass wide_256=violated
step "$tmp/gemm_bwd_a_wrong.json" "$rec/gemm_bwd_a" gemm_bwd_a_wrong
rc=$?
[ $rc = 2 ]; ok $? "an expected pass refused: exit 2, an unexpected refusal (got $rc)"
grep -q "^unexpected outcome: gemm_bwd_a/refused_m100: expected pass, got refused$" "$tmp/gemm_bwd_a_wrong.log" &&
    grep -q "^unexpected outcome: gemm_bwd_a/wide_256: expected violated, got pass$" "$tmp/gemm_bwd_a_wrong.log" &&
    [ "$(grep -c '^unexpected outcome: ' "$tmp/gemm_bwd_a_wrong.log")" = 2 ]
ok $? "the harness names both cases, and only them, expected and got"
unexpected gemm_bwd_a_wrong '[{"case": "wide_256", "expected": "violated", "got": "pass"},
    {"case": "refused_m100", "expected": "pass", "got": "refused"}]' &&
    grep -q '"status": "unexpected refusal or error"' "$tmp/gemm_bwd_a_wrong.json" &&
    grep -q "^gemm_bwd_a_wrong/refused_m100: expected pass, got refused$" "$tmp/gemm_bwd_a_wrong.log"
ok $? "the step's JSON and log list them"

edit_expect build/gen/embedding_bwd_pilot.plan.json "$tmp/pilot_wrong.json" wide_4096x128=pass
step "$tmp/pilot_wrong.json" "$rec/embedding_bwd_pilot" pilot_wrong
rc=$?
[ $rc = 1 ] && grep -q "^unexpected outcome: embedding_bwd_pilot/wide_4096x128: expected pass, got violated$" "$tmp/pilot_wrong.log" &&
    unexpected pilot_wrong '[{"case": "wide_4096x128", "expected": "pass", "got": "violated"}]'
ok $? "a violation where a pass is expected: exit 1, named (got $rc)"
"$tp" replay --quiet "$tmp/pilot_wrong" >"$tmp/pilot_wrong.replay"
[ $? = 1 ] && grep -q "every verdict re-derived" "$tmp/pilot_wrong.replay" &&
    grep -q "^not ok - $tmp/pilot_wrong/wide_4096x128: expected pass, got violated$" "$tmp/pilot_wrong.replay"
ok $? "replay of that run re-derives every verdict and still fails on the surprise (exit 1)"

# ---- outputs that are not the recorded ones
cp -r "$rec/embedding_bwd" "$tmp/edited_rec"
"$tp" unpack "$tmp/edited_rec" >/dev/null # recorded as .tpr (recorded/MIGRATIONS.md 0004)
$py -c 'import numpy, sys
a = numpy.load(sys.argv[1]); a.flat[5] = 60000.0; numpy.save(sys.argv[1], a)' "$tmp/edited_rec/outputs/zipf_4096x256/gW.npy"
step build/gen/embedding_bwd.plan.json "$tmp/edited_rec" edited
rc=$?
[ $rc = 1 ] && [ "$(grep -c '^unexpected outcome: ' "$tmp/edited.log")" = 1 ] &&
    grep -q "^unexpected outcome: embedding_bwd/zipf_4096x256: expected pass, got violated$" "$tmp/edited.log"
ok $? "an output pushed outside its bound: exit 1, the case named alone (got $rc)"

cp -r "$rec/embedding_bwd_pilot" "$tmp/gone_rec"
rm "$tmp/gone_rec/outputs/zipf_4096x256/gW.tpr"
step build/gen/embedding_bwd_pilot.plan.json "$tmp/gone_rec" gone
rc=$?
[ $rc = 2 ] && grep -q "^unexpected outcome: embedding_bwd_pilot/zipf_4096x256: expected violated, got error$" "$tmp/gone.log" &&
    grep -q "zipf_4096x256/gW.npy" "$tmp/gone/results.json"
ok $? "a launch that fails (no recorded output): exit 2, expected violated, got error, the file named (got $rc)"
step build/gen/embedding_bwd_pilot.plan.json "$tmp/gone_rec" gone_one --case refused_out_of_range
ok $? "the expected refusal alone exits 0"

tap_end
