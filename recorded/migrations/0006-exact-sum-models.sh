#!/usr/bin/env bash
# Migration 0006 (recorded/MIGRATIONS.md): the Evidence statements of four
# exact sums say which proof covers them. Rewrites the text of
#   softmax_xent_bwd.exact.split_double     (its row dot is now the proven
#       tp_ln_row_dot, exact in WP's IEEE float model, not softmax.c's
#       real-model copy)
#   layernorm_fwd.exact.split_double_mpfi, layernorm_bwd_input.exact.split_double_mpfi
#       (their row sums and dots were proven exact in the IEEE float model
#       when the recordings were already made; the text still said "in the
#       real model")
#   layernorm_bwd_params.exact.split_double_mpfi
#       (its column sums are tp_ln_col_sums of layernorm_cols.c, which the
#       text did not name; still the real model)
# in every recorded results.json that holds them. Nothing else changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0006-exact-sum-models.sh
# The texts below go to recorded/migrations/rewrite-statements.sh, which
# rewrites with `tolproof replay --rewrite-statements` and checks that only
# those texts changed and that every recorded run replays. Exit 0 when all
# of that holds, 1 otherwise. Re-runnable: a second run changes nothing.
set -euo pipefail
texts=$(mktemp)
trap 'rm -f "$texts"' EXIT
/usr/bin/python3 - >"$texts" <<'PY'
import json

IEEE = "WP-proven exact in the IEEE float model for binary16 inputs"
TEXTS = {  # old text -> new text, as the ops say them
    "exact row dot products by split-double accumulation (oracles/softmax/proven/softmax.c, WP-proven T1+T2 in the "
    "real model; exactness of each double operation argued there), s*(g - D) exactly in MPFR":
    "exact row dot products by split-double accumulation (oracles/layernorm/proven/layernorm.c, " + IEEE +
    "), s*(g - D) exactly in MPFR",
    "exact row sums of x and x^2 by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven "
    "T1+T2 in the real model); mean, rstd and y as MPFI enclosures at 256 bits, eps the kernel's fp32 literal as an "
    "exact real":
    "exact row sums of x and x^2 by split-double accumulation (oracles/layernorm/proven/layernorm.c, " + IEEE +
    "); mean, rstd and y as MPFI enclosures at 256 bits, eps the kernel's fp32 literal as an exact real",
    "exact sum of dy*gamma by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven T1+T2 in "
    "the real model); dx as an MPFI enclosure at 256 bits":
    "exact sum of dy*gamma by split-double accumulation (oracles/layernorm/proven/layernorm.c, " + IEEE +
    "); dx as an MPFI enclosure at 256 bits",
    "exact column sums of dy by split-double accumulation (oracles/layernorm/proven/layernorm.c, WP-proven T1+T2 in "
    "the real model); dgamma as an MPFI enclosure at 256 bits":
    "exact column sums of dy by split-double accumulation (oracles/layernorm/proven/layernorm_cols.c, WP-proven "
    "T1+T2 in the real model; exactness of each double operation argued in oracles/common/proven/exact_sum.h); "
    "dgamma as an MPFI enclosure at 256 bits",
}
print(json.dumps(TEXTS))
PY
"$(dirname "$0")/rewrite-statements.sh" "$texts"
