#!/usr/bin/env bash
# Rounding-mode independence (issue 14, item 4) of what the checker
# computes: every op's reference (exact value, its enclosure, the admitted
# interval), run through tp_op_reference for the small cases of every
# contract's plan, is bit for bit the same whether the caller is in
# FE_TONEAREST, FE_UPWARD, FE_DOWNWARD or FE_TOWARDZERO
# (tests/tool_modes.c). The codecs and fills are checked the same way by
# tests/test_format.c and tests/test_rounding_modes.c. Needs the plans (`ninja
# plans`).
set -u
cd "$(dirname "$0")/.."
tool=build/tests/tool_modes
. tests/tap.sh

# larger cases worth their time: signed zeros and overflows, and the one
# op (layernorm_bwd_params) whose small cases all have large inputs
declare -A extra=(
    [embedding_bwd]="special_1024x256 ragged_999x300"
    [embedding_bwd_pilot]="special_1024x256"
    [layernorm_bwd_params]="special_512x128 short_100x512"
)
shopt -s nullglob
plans=(build/gen/*.plan.json)
[ ${#plans[@]} -gt 0 ]; ok $? "the plans are built (${#plans[@]} under build/gen)"
for plan in "${plans[@]}"; do
    c=$(basename "$plan" .plan.json)
    # shellcheck disable=SC2086
    "$tool" "$plan" 100000 ${extra[$c]:-} >"$tmp/$c.tap" 2>"$tmp/$c.err"
    rc=$?
    cases=$(grep -c '^ok' "$tmp/$c.tap")
    [ "$rc" = 0 ] && [ "$cases" -gt 0 ]
    ok $? "$c: the reference of $cases case(s) is the same in the four rounding modes"
    [ "$rc" = 0 ] || grep -hv '^ok' "$tmp/$c.tap" "$tmp/$c.err" | sed 's/^/# /'
done

# the guard is what makes it so: called directly, gemm's reference returns
# to the caller's mode for its last steps and its exact values move
TP_MODES_RAW=1 "$tool" build/gen/gemm_fwd.plan.json 100000 >"$tmp/raw.tap" 2>&1
[ $? = 1 ] && grep -q '^not ok' "$tmp/raw.tap"
ok $? "without tp_op_reference's guard, gemm's reference follows the caller's mode (the check can fail)"
tap_end
