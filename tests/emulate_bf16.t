#!/usr/bin/env bash
# The bfloat16 contracts (SwiGLU forward, RMSNorm forward) end to end
# without a GPU: CPU emulations of the kernels (tests/tool_emulate.c) pass
# the launched cases, the cases the binary32 model cannot judge (an fp32
# product that may overflow, a row too long) are refused before launch as
# the contracts expect, the runs re-derive under `tolproof replay`, and
# planted errors are caught: a conversion to bf16 that truncates instead of
# rounding to nearest even, a wrong constant, eps dropped.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

# the cases run here (the 4-million-element ones cost the most on the CPU)
declare -A cases=(
    [swiglu_fwd_bf16]="llama8b_16x14336 wide_256x1024 negative_gate_256x256 all_bf16_gate_64x1020 special_64x64 refused_overflow_64x1024"
    [rmsnorm_fwd_bf16]="qk_norm_1024x128 wide_64x1024 tiny_rows_64x256 outliers_32x4096 subnormal_w_64x64 refused_huge_x_64x64 refused_cols_65537"
)
declare -A mutant=([swiglu_fwd_bf16]="truncate wrong_constant" [rmsnorm_fwd_bf16]="truncate no_eps")
declare -A refusal=(
    [swiglu_fwd_bf16]="refused_overflow_64x1024: refused: elementwise: y\[4\] .*a product may overflow binary32"
    [rmsnorm_fwd_bf16]="refused_huge_x_64x64: refused: rowwise: y, row 0, column 2: a product may overflow binary32 at operation 3 of model.reduce.ss"
)

for c in swiglu_fwd_bf16 rmsnorm_fwd_bf16; do
    plan=build/gen/$c.plan.json
    args=()
    for k in ${cases[$c]}; do args+=(--case "$k"); done
    "$emu" "$plan" "$tmp/$c" "${args[@]}" >/dev/null 2>"$tmp/$c.log"
    ok $? "$c: emulated kernel passes or is refused as each case expects (${cases[$c]})"
    grep -q "${refusal[$c]}" "$tmp/$c.log"
    ok $? "$c: the overflow refusal names the element and the operation"
    "$tp" replay "$tmp/$c" >"$tmp/$c.replay"
    ok $? "$c: replay re-derives the emulated run"
    for m in ${mutant[$c]}; do
        "$emu" "$plan" "$tmp/$c.$m" "${args[@]}" --mutant "$m" >/dev/null 2>"$tmp/$c.$m.log"
        [ $? = 1 ]; ok $? "$c: planted error '$m' is a violation (harness exit 1)"
    done
    # truncation is off by one bf16 ulp on about half the elements: every
    # launched case must catch it
    nfail=$(grep -c ": fail: " "$tmp/$c.truncate.log")
    want=$(grep -c ": pass: " "$tmp/$c.log")
    [ "$nfail" = "$want" ]; ok $? "$c: truncation is caught in every launched case ($nfail of $want)"
done

tap_end
