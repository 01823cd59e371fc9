#!/usr/bin/env bash
# Migration 0008 (recorded/MIGRATIONS.md): the Evidence statements of two
# exact sums say that they are now proven exact in WP's IEEE float model.
# Rewrites the text of
#   gemm.exact.split_double  (each output row of the exact GEMM: proven
#       exact in the IEEE float model for binary16 inputs; the loop over
#       rows is plain C, tested, not proven)
#   layernorm_bwd_params.exact.split_double_mpfi  (the column sums:
#       proven exact in the IEEE float model for binary16 inputs)
# in every recorded results.json that holds them. Nothing else changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0008-ieee-exact-gemm-cols.sh
# The texts below go to recorded/migrations/rewrite-statements.sh, which
# rewrites with `tolproof replay --rewrite-statements` and checks that only
# those texts changed and that every recorded run replays. Exit 0 when all
# of that holds, 1 otherwise. Re-runnable: a second run changes nothing.
set -euo pipefail
texts=$(mktemp)
trap 'rm -f "$texts"' EXIT
/usr/bin/python3 - >"$texts" <<'PY'
import json

TEXTS = {  # old text -> new text, as the ops say them
    "exact sums by split-double accumulation (oracles/gemm/proven/gemm.c, WP-proven T1+T2 in the real model; "
    "exactness of each double operation argued there and tested bit for bit against MPFR)":
    "exact sums by split-double accumulation (oracles/gemm/proven/gemm.c: each output row WP-proven exact in the "
    "IEEE float model for binary16 inputs; the loop over rows tested against MPFR, not proven)",
    "exact column sums of dy by split-double accumulation (oracles/layernorm/proven/layernorm_cols.c, WP-proven "
    "T1+T2 in the real model; exactness of each double operation argued in oracles/common/proven/exact_sum.h); "
    "dgamma as an MPFI enclosure at 256 bits":
    "exact column sums of dy by split-double accumulation (oracles/layernorm/proven/layernorm_cols.c, WP-proven "
    "exact in the IEEE float model for binary16 inputs); dgamma as an MPFI enclosure at 256 bits",
}
print(json.dumps(TEXTS))
PY
"$(dirname "$0")/rewrite-statements.sh" "$texts"
