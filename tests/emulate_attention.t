#!/usr/bin/env bash
# The attention contracts (contracts/attention_fwd.toml, _causal.toml) end
# to end without a GPU: a CPU emulation of the kernel's online softmax
# (tests/tool_emulate.c) passes every launched case, the runs re-derive
# under `tolproof replay`, emulations the model admits in other ways pass
# (tiles of 32 keys, the tiles in reverse order, P kept in binary32), and
# wrong ones fail: no rescale of the accumulator, a stale running maximum,
# the scale applied twice, P kept to four significant bits, the last tile
# dropped, the causal mask off by one.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

full=build/gen/attention_fwd.plan.json causal=build/gen/attention_fwd_causal.plan.json
fargs=(--case normal_2x4x512x64 --case large_logits_1x4x256x128 --case cancelling_v_1x4x256x64
    --case special_1x2x64x64 --case ragged_1x2x100x64)
cargs=(--case causal_2x4x512x64 --case causal_large_logits_1x4x256x128 --case causal_special_1x2x64x64)
"$emu" "$full" "$tmp/full" "${fargs[@]}" >/dev/null 2>"$tmp/full.log"
ok $? "attention_fwd: the emulated kernel passes every case ($(grep -c ': pass: ' "$tmp/full.log") passed)"
"$emu" "$causal" "$tmp/causal" "${cargs[@]}" >/dev/null 2>"$tmp/causal.log"
ok $? "attention_fwd_causal: the emulated kernel passes every case ($(grep -c ': pass: ' "$tmp/causal.log") passed)"
"$tp" replay "$tmp/full" "$tmp/causal" >"$tmp/replay.log"
ok $? "both runs re-derive under tolproof replay"
# tightness: a correct kernel should come close to its bound somewhere
worst=$(grep -o 'max err/bound [0-9.e+-]*' "$tmp/full.log" | awk '{ if ($3 > m) m = $3 } END { print m }')
awk -v w="$worst" 'BEGIN { exit !(w >= 0.05) }'
ok $? "the largest err/bound over the passing cases is at least 0.05 ($worst)"

small=(--case large_logits_1x4x256x128 --case cancelling_v_1x4x256x64)
for m in tile32 reverse_tiles p_fp32; do
    "$emu" "$full" "$tmp/ok.$m" "${small[@]}" --mutant "$m" >/dev/null 2>"$tmp/ok.$m.log"
    ok $? "admitted by the model: '$m' passes"
done
for m in no_rescale stale_max scale_twice p_fp8 drop_last_tile; do
    "$emu" "$full" "$tmp/bad.$m" "${small[@]}" --mutant "$m" >/dev/null 2>"$tmp/bad.$m.log"
    [ $? = 1 ]; ok $? "wrong: '$m' is a violation (harness exit 1, $(grep -c ': fail: ' "$tmp/bad.$m.log") of 2 cases)"
done
"$emu" "$causal" "$tmp/bad.obo" --case causal_2x4x512x64 --mutant off_by_one >/dev/null 2>"$tmp/bad.obo.log"
[ $? = 1 ]; ok $? "wrong: the causal mask off by one is a violation"

tap_end
