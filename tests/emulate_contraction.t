#!/usr/bin/env bash
# The fused MLP projection contracts (contracts/gemm_bias_gelu.toml, B
# K x N, and gemm_bias_gelu_nt.toml, nn.Linear's N x K weight), op
# contraction, end to end without a GPU: a CPU emulation of
# kernels/gemm_bias_gelu.hip (tests/tool_emulate.c: sequential fmaf chains,
# the host's tanhf) passes the launched cases, K = 65537 is refused before
# launch as the contract expects, the runs re-derive under `tolproof
# replay`, and planted errors are caught: the bias never added, the bias
# added after the GELU, the bias read by row, the accumulator kept in
# binary16 between tiles of k, the sigmoid form of GELU.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

plan=build/gen/gemm_bias_gelu.plan.json
cases="ragged_3x37x100x250 tiny_1x1x1x1 bias_cancels_2x16x64x4096 cancel_2x64x64x512 special_2x32x64x32 wide_2x48x80x256 ksplit_2x8x32x16384 refused_k65537"
args=()
for k in $cases; do args+=(--case "$k"); done
"$emu" "$plan" "$tmp/ct" "${args[@]}" >/dev/null 2>"$tmp/ct.log"
ok $? "gemm_bias_gelu: emulated kernel passes or is refused as each case expects ($cases)"
grep -q 'refused_k65537: refused: case refused_k65537: requirement "K <= 65536" does not hold' "$tmp/ct.log"
ok $? "gemm_bias_gelu: K = 65537 is refused before launch, naming the requirement"
"$tp" replay "$tmp/ct" >"$tmp/ct.replay"
ok $? "gemm_bias_gelu: replay re-derives the emulated run"
grep -q '"contraction.bound.epilogue"' "$tmp/ct/results.json"
ok $? "gemm_bias_gelu: the results state that the epilogue's admitted values come from the binary32 model"

ntplan=build/gen/gemm_bias_gelu_nt.plan.json
ntcases="ragged_3x37x100x250 cancel_2x64x64x512 special_2x32x64x32"
ntargs=()
for k in $ntcases; do ntargs+=(--case "$k"); done
"$emu" "$ntplan" "$tmp/nt" "${ntargs[@]}" >/dev/null 2>"$tmp/nt.log"
ok $? "gemm_bias_gelu_nt (nn.Linear's weight, transpose_b): emulated kernel passes ($ntcases)"
"$tp" replay "$tmp/nt" >"$tmp/nt.replay"
ok $? "gemm_bias_gelu_nt: replay re-derives the emulated run"

for m in no_bias bias_after_gelu bias_by_row fp16_tile_acc quick_gelu; do
    "$emu" "$plan" "$tmp/ct.$m" "${args[@]}" --mutant "$m" >/dev/null 2>"$tmp/ct.$m.log"
    [ $? = 1 ]; ok $? "gemm_bias_gelu: planted error '$m' is a violation (harness exit 1)"
done
# a forgotten bias changes every element whose bias is not tiny: every
# launched case but cancel (bias ~ 0.01) and ksplit (bound ~ 4) must catch it
nfail=$(grep -c ": fail: " "$tmp/ct.no_bias.log")
[ "$nfail" -ge 5 ]; ok $? "gemm_bias_gelu: the forgotten bias is caught in $nfail launched cases (at least 5)"
"$emu" "$ntplan" "$tmp/nt.tile" "${ntargs[@]}" --mutant fp16_tile_acc >/dev/null 2>&1
[ $? = 1 ]; ok $? "gemm_bias_gelu_nt: the accumulator kept in binary16 between tiles is a violation"

tap_end
