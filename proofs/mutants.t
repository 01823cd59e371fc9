#!/usr/bin/env bash
# WP notices a wrong exact sum: each mutant is a copy of the oracles with one
# edit, and proofs/wp.sh must fail on it, naming the goal that no longer
# proves (the proof runs in WP's IEEE float model, where a dropped low-order
# accumulator or a wrong split is visible; in the real model M4 passed).
#   M4  tp_ln_row_sum without its low-part accumulation (the old
#       `l += p - t;`, now `l = tp_exact_add_lo(l, d);`): hi + lo is no
#       longer the sum (invariant `partial`).
#   M5  split scale 1.5*2^40 instead of 1.5*2^44 (exact_sum_consts.h): the high part is no longer
#       a multiple of 2^-8 (tp_exact_split, assertion t_grid).
#   M6  LayerNorm's length limit doubled to 2^14: the low accumulator may
#       leave the range where its additions are exact (tp_ln_row_sum's call
#       of tp_exact_add_lo, precondition `range`).
# And two of the interval evaluator's primitives:
#   M7  tp_ival32_fma's upper end takes one corner with c.lo instead of
#       c.hi: too low where that corner is the largest (postcondition
#       `ends`).
#   M8  tp_f16_lower_end confirms a candidate exactly on the midpoint
#       whatever its parity: at a tie to an even predecessor the end is one
#       step too high (assertion `at_or_above`, and the end unsound).
#   M9  tp_ival32_div's lower end is RN32(a.lo / b.lo) alone, without the
#       other corner: too high where a.lo >= 0 (assertion `lo_rounded`).
#   M10 tp_bf16_upper_end confirms a candidate exactly on the midpoint
#       whatever its parity: at a tie to an even successor the end is one
#       step too low (assertion `at_or_under`).
# And the vendor-ulp ends (tp_vendor_ulp.c):
#   M11 k ulps below lo counted as k values below a power of two (k
#       nextafterf steps, half an ulp each there): the lower end is too high
#       for a lo just above a power of two (assertion `m`).
#   M12 the least power of two above lo no longer considered: a c in a
#       higher binade of [lo, hi] reaches further down than lo (assertion
#       `none_above`).
# And the two steps from an output's bits to its verdict (tp_f16_decode.h):
#   M13 the binary16 decoder takes the exponent field itself as the scale,
#       not the field minus one: every normal value twice too large
#       (assertion `fields`).
#   M14 the element rule leaves out the upper end (y < hi): an output
#       exactly on the end would be a violation (postcondition `finite`).
# About 22 minutes on 2 cores (11 when run again; M11 and M12 took 5 of them
# on 2026-11-27) (each copy is proved again, its failing goals
# up to TP_WP_TIMEOUT = 10 s), so it is its own target, `ninja proof_mutants`,
# not part of `ninja test`. With TP_MUTANTS_EDITS_ONLY=1 it only checks that
# every edit still applies to the oracles, in a second, with no prover:
# tests/mutant_edits.t runs that in `ninja test`, so that an oracle edit
# that moves a mutant's target line shows up in CI (M5 edited a line that
# had moved to another file, unnoticed, from 56873e8 to e8ec9d1).
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh
edits_only=${TP_MUTANTS_EDITS_ONLY:-0}

[ "$edits_only" = 1 ] || for tool in frama-c why3 z3 cvc4 gappa; do
    if ! command -v $tool >/dev/null; then
        echo "1..0 # SKIP $tool not installed"
        exit 0
    fi
done

# mutant NAME FILE SED-EXPRESSION GOAL [ORACLE]: copy the oracles (and core/), apply the
# edit to FILE, check that the edit took, prove ORACLE (default
# layernorm/proven/layernorm.c), expect GOAL to fail.
mutant() {
    local name=$1 file=$2 expr=$3 goal=$4 oracle=${5:-layernorm/proven/layernorm.c} dir=$tmp/$1
    mkdir -p "$dir"
    cp -r oracles core "$dir/" # core/tp_hd.h: the proven headers include it
    sed -i -e "$expr" "$dir/$file"
    ! cmp -s "oracles/${file#oracles/}" "$dir/$file"
    ok $? "$name: the edit applies to $file"
    [ "$edits_only" = 1 ] && return
    TP_WP_TIMEOUT=10 TP_WP_RETRY_TIMEOUTS=40 proofs/wp.sh "$dir/oracles/$oracle" "$dir/out" >"$dir/wp.out" 2>&1
    [ $? -ne 0 ]
    ok $? "$name: proofs/wp.sh fails"
    grep -qE "^  \[wp\] \[Failed\] Goal typed_tolproof_$goal\$" "$dir/wp.out"
    ok $? "$name: goal $goal fails"
    [ "$(grep -c '^  \[wp\] \[Failed\]' "$dir/wp.out")" -ge 1 ] || sed 's/^/# /' "$dir/wp.out"
}

mutant M4 oracles/layernorm/proven/layernorm.c \
    '0,/^        l = tp_exact_add_lo(l, d);$/{/^        l = tp_exact_add_lo(l, d);$/d}' \
    tp_ln_row_sum_loop_invariant_partial_preserved
mutant M5 oracles/common/proven/exact_sum_consts.h \
    's/^#define TP_EXACT_SPLIT 0x1.8p44$/#define TP_EXACT_SPLIT 0x1.8p40/' \
    tp_exact_split_assert_t_grid
mutant M6 oracles/layernorm/proven/layernorm_cols.h \
    's/^#define TP_LN_N_MAX 8192$/#define TP_LN_N_MAX 16384/' \
    tp_ln_row_sum_call_tp_exact_add_lo_requires_range
mutant M7 oracles/common/proven/tp_ival_fma.c \
    's/^    r.hi = max_f(max_f(h1, h2), max_f(h3, h4));$/    r.hi = max_f(max_f(h1, h2), max_f(h3, l4));/' \
    tp_ival32_fma_ensures_ends common/proven/tp_ival_fma.c
mutant M8 oracles/common/proven/tp_f16_round.c \
    's/^    if (!(u > t) \&\& !(blo == vm \&\& c % 2 == 0)) {$/    if (!(u > t) \&\& !(blo == vm)) {/' \
    tp_f16_lower_end_assert_at_or_above common/proven/tp_f16_round.c
mutant M9 oracles/common/proven/tp_ival_div.c \
    's/^    r.lo = min_f(tp_f32_div(a.lo, b.lo), tp_f32_div(a.lo, b.hi));$/    r.lo = tp_f32_div(a.lo, b.lo);/' \
    tp_ival32_div_assert_lo_rounded common/proven/tp_ival_div.c
mutant M10 oracles/common/proven/tp_bf16_round.c \
    's/^    if (!(u < t) \&\& !(bhi == vm \&\& c % 2 == 0)) {$/    if (!(u < t) \&\& !(bhi == vm)) {/' \
    tp_bf16_upper_end_assert_at_or_under common/proven/tp_bf16_round.c
mutant M11 oracles/common/proven/tp_vendor_ulp.c \
    's/^        const int32_t m = field < 2 || frac >= k ? lo - k : lo - frac - 2 \* (k - frac);$/        const int32_t m = field < 2 || frac >= k ? lo - k : lo - frac - (k - frac);/' \
    tp_vendor_lower_ord_assert_m common/proven/tp_vendor_ulp.c
mutant M12 oracles/common/proven/tp_vendor_ulp.c \
    's/^        if (pb <= 254 \&\& pb \* 0x800000 <= hi) {$/        if (0) {/' \
    tp_vendor_lower_ord_assert_none_above common/proven/tp_vendor_ulp.c
mutant M13 oracles/common/proven/tp_f16_decode.h \
    's/^    const int scale = ef ? (int)ef - 1 : 0;$/    const int scale = ef ? (int)ef : 0;/' \
    tp_f16_decode_assert_fields common/proven/tp_f16_decode.c
mutant M14 oracles/common/proven/tp_f16_decode.h \
    's/^    return lo <= y \&\& y <= hi;$/    return lo <= y \&\& y < hi;/' \
    tp_admitted_ensures_finite common/proven/tp_f16_decode.c

# The unmutated copy proves (the mutants fail for their edit, not the copy).
if [ "$edits_only" != 1 ]; then
    mkdir -p "$tmp/base"
    cp -r oracles core "$tmp/base/"
    TP_WP_TIMEOUT=10 TP_WP_RETRY_TIMEOUTS=40 proofs/wp.sh "$tmp/base/oracles/layernorm/proven/layernorm.c" "$tmp/base/out" >"$tmp/base/wp.out" 2>&1
    ok $? "the unmutated copy proves"
fi

tap_end
