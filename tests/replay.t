#!/usr/bin/env bash
# Record/replay: a run recorded through the harness runtime (with the kernel
# emulated on the CPU) re-derives exactly under `tolproof replay`; planted
# errors in the kernel are caught; any edit to an output tensor or to a
# recorded verdict is caught; and every recorded GPU run in recorded/
# re-derives, while a tampered copy of it does not.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh
plan=build/gen/gemm_fwd.plan.json
small=(--case normal_64 --case ragged_100x37x250 --case tiny_1x1x1 --case cancel_128x64x512 --case special_64x64x32)

"$emu" "$plan" "$tmp/good" "${small[@]}" >/dev/null 2>"$tmp/log"
ok $? "emulated sequential-fmaf GEMM passes every case of its contract"
"$tp" replay "$tmp/good" >"$tmp/replay.log"
ok $? "replay re-derives the emulated run"
grep -q "^not ok" "$tmp/replay.log"; ok $((1 - $?)) "replay reports no disagreement"

for m in fp16_accumulate drop_last_term; do
    "$emu" "$plan" "$tmp/$m" "${small[@]}" --mutant "$m" >/dev/null 2>&1
    [ $? = 1 ]; ok $? "planted error '$m' is a violation (harness exit 1)"
    "$tp" replay "$tmp/$m" >/dev/null
    ok $? "the violating run '$m' also re-derives (replay checks, not judges)"
done

gelu=build/gen/gelu_bwd.plan.json
"$emu" "$gelu" "$tmp/gelu" --case normal_65536 >/dev/null 2>"$tmp/gelu.log"
ok $? "emulated GELU backward (host tanhf) passes its normal case"
"$emu" "$gelu" "$tmp/gelu_bad" --case normal_65536 --mutant wrong_constant >/dev/null 2>&1
[ $? = 1 ]; ok $? "GELU backward with c = 0.7978 is caught"

# flip one byte in the data part of an output tensor
cp -r "$tmp/good" "$tmp/flip"
f="$tmp/flip/outputs/normal_64/C.npy"
printf '\x01' | dd of="$f" bs=1 seek=200 conv=notrunc status=none
"$tp" replay "$tmp/flip" >"$tmp/flip.log"
[ $? = 1 ]; ok $? "a flipped byte in an output tensor fails the replay"
grep -q "normal_64.*disagrees" "$tmp/flip.log"; ok $? "the failure names the case"

# edit a recorded verdict
cp -r "$tmp/good" "$tmp/edit"
sed -i '0,/"violations": 0/s//"violations": 1/' "$tmp/edit/results.json"
"$tp" replay "$tmp/edit" >"$tmp/edit.log"
[ $? = 1 ]; ok $? "an edited count in results.json fails the replay"
grep -q "violations" "$tmp/edit.log"; ok $? "the failure names the field that disagrees"

# truncated output file
cp -r "$tmp/good" "$tmp/trunc"
truncate -s 100 "$tmp/trunc/outputs/tiny_1x1x1/C.npy"
"$tp" replay "$tmp/trunc" >"$tmp/trunc.log"
[ $? != 0 ]; ok $? "a truncated output tensor fails the replay"

# the recorded GPU runs
shopt -s nullglob
runs=()
for r in recorded/*/*/; do
    # the verdict corpus (recorded/variants/) is replayed by tests/verdicts.t
    [[ $r == recorded/variants/* ]] || runs+=("$r")
done
if [ ${#runs[@]} -eq 0 ]; then
    n=$((n + 1)); echo "ok $n # SKIP no recorded GPU run in recorded/"
else
    "$tp" replay --quiet "${runs[@]}" >"$tmp/rec.log"
    ok $? "every recorded GPU run (${#runs[@]}) re-derives"
    for r in "${runs[@]}"; do
        cp -r "$r" "$tmp/rec_copy"
        npy=$(find "$tmp/rec_copy/outputs" -name '*.npy' ! -name 'input_*' | sort | head -n 1)
        case_name=$(basename "$(dirname "$npy")")
        size=$(stat -c %s "$npy")
        # flip the last byte of the first output: a real value, not padding
        last=$(od -An -tu1 -j $((size - 1)) -N1 "$npy" | tr -d ' ')
        printf "$(printf '\\%03o' $(((last + 1) % 256)))" | dd of="$npy" bs=1 seek=$((size - 1)) conv=notrunc status=none
        "$tp" replay --case "$case_name" "$tmp/rec_copy" >/dev/null
        [ $? = 1 ]; ok $? "a tampered copy of $r (case $case_name) fails the replay"
        rm -rf "$tmp/rec_copy"
    done
fi
tap_end
