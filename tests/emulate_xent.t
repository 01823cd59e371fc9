#!/usr/bin/env bash
# The fused softmax cross-entropy contract (contracts/softmax_xent_fused.toml)
# end to end without a GPU: a CPU emulation of the kernel
# (tests/tool_emulate.c, the host's expf and logf, 1024 strided partial
# sums and a tree) passes the launched cases, a row above the proven
# sum bound's length is refused before launch, the run re-derives under
# `tolproof replay`, and planted errors are caught: the target's -1 left
# out, the loss without + max, the gradient unscaled, the one-hot a
# column late, per-thread sums in binary16.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

plan=build/gen/softmax_xent_fused.plan.json
cases="target_first_column_16x4096 confident_all_f16_62x1024 ignore_index_8x4096 special_64x64 wide_32x4096 single_class_8x1 refused_V_262145"
args=()
for k in $cases; do args+=(--case "$k"); done
"$emu" "$plan" "$tmp/xent" "${args[@]}" >/dev/null 2>"$tmp/xent.log"
ok $? "softmax_xent_fused: emulated kernel passes or is refused as each case expects ($cases)"
grep -q "refused_V_262145: refused: case refused_V_262145: requirement \"V <= 262144\" does not hold" "$tmp/xent.log"
ok $? "softmax_xent_fused: a row longer than the proven sum bound covers is refused before launch"
"$tp" replay "$tmp/xent" >"$tmp/xent.replay"
ok $? "softmax_xent_fused: replay re-derives the emulated run"
for m in no_onehot loss_no_max unscaled onehot_next; do
    "$emu" "$plan" "$tmp/xent.$m" --case special_64x64 --case target_first_column_16x4096 --mutant "$m" >/dev/null \
        2>"$tmp/xent.$m.log"
    [ $? = 1 ] && [ "$(grep -c ": fail: " "$tmp/xent.$m.log")" = 2 ]
    ok $? "softmax_xent_fused: planted error '$m' is a violation in both cases"
done
# binary16 partial sums lose exponentials below half their spacing: caught
# where a row's terms are tiny next to its max (the confident rows)
"$emu" "$plan" "$tmp/xent.fp16_sum" --case confident_all_f16_62x1024 --mutant fp16_sum >/dev/null 2>"$tmp/xent.fp16.log"
[ $? = 1 ]; ok $? "softmax_xent_fused: planted error 'fp16_sum' is a violation on the confident rows"

tap_end
