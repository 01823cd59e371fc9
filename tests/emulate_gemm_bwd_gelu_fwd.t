#!/usr/bin/env bash
# The GEMM backward (grad_A, grad_B) and GELU forward contracts end to end
# without a GPU: CPU emulations of the kernels (tests/tool_emulate.c) pass
# every launched case, the shapes the kernels cannot take are refused
# before launch (as their cases expect), the runs re-derive under `tolproof
# replay`, and planted errors (an operand read transposed, a wrong
# constant) are caught.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

# name, the small launched cases (the 1024^3 ones cost tens of seconds on
# the CPU), the refused case
declare -A small=(
    [gemm_bwd_a]="ragged_n_128x250x64 cancel_128x512x64 wide_256 special_64x32x64"
    [gemm_bwd_b]="ragged_m_250x64x128 cancel_512x64x128 wide_256 special_32x64x64"
)
declare -A refused=([gemm_bwd_a]=refused_m100 [gemm_bwd_b]=refused_k100)

for c in gemm_bwd_a gemm_bwd_b; do
    plan=build/gen/$c.plan.json
    args=()
    for k in ${small[$c]}; do args+=(--case "$k"); done
    "$emu" "$plan" "$tmp/$c" "${args[@]}" >/dev/null 2>"$tmp/$c.log"
    ok $? "$c: emulated sequential-fmaf kernel passes ${small[$c]}"
    "$tp" replay "$tmp/$c" >"$tmp/$c.replay"
    ok $? "$c: replay re-derives the emulated run"

    "$emu" "$plan" "$tmp/$c.ref" --case "${refused[$c]}" >/dev/null 2>"$tmp/$c.ref.log"
    [ $? = 0 ]; ok $? "$c: ${refused[$c]} is refused, as the case expects (exit 0)"
    grep -q "refused.*must be multiples of 16" "$tmp/$c.ref.log"
    ok $? "$c: the refusal names the tile requirement"
    [ ! -e "$tmp/$c.ref/outputs/${refused[$c]}" ]; ok $? "$c: nothing was launched or recorded for the refused case"
    "$tp" replay "$tmp/$c.ref" >/dev/null
    ok $? "$c: replay re-derives the refusal"

    "$emu" "$plan" "$tmp/$c.mut" "${args[@]}" --mutant transposed_operand >/dev/null 2>"$tmp/$c.mut.log"
    [ $? = 1 ]; ok $? "$c: planted error 'transposed_operand' is a violation (harness exit 1)"
    "$tp" replay "$tmp/$c.mut" >"$tmp/$c.mut.replay"
    [ $? = 1 ] && ! grep -q "disagrees" "$tmp/$c.mut.replay" && grep -q "every verdict re-derived" "$tmp/$c.mut.replay" &&
        grep -q "^not ok - $tmp/$c.mut/[a-z0-9_]*: expected pass, got violated$" "$tmp/$c.mut.replay"
    ok $? "$c: the violating run also re-derives, and replay names its unexpected violations"
done

plan=build/gen/gelu_fwd.plan.json
"$emu" "$plan" "$tmp/gelu_fwd" >/dev/null 2>"$tmp/gelu_fwd.log"
ok $? "gelu_fwd: emulated kernel (host tanhf) passes every case, all_f16 included"
"$tp" replay "$tmp/gelu_fwd" >/dev/null
ok $? "gelu_fwd: replay re-derives the emulated run"
"$emu" "$plan" "$tmp/gelu_fwd.mut" --case normal_65536 --mutant wrong_constant >/dev/null 2>&1
[ $? = 1 ]; ok $? "gelu_fwd: c = 0.7978 is caught"

tap_end
