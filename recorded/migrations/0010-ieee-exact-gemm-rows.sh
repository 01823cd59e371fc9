#!/usr/bin/env bash
# Migration 0010 (recorded/MIGRATIONS.md): the Evidence statement of the
# exact GEMM says that its loop over rows is now proven too. Rewrites the
# text of
#   gemm.exact.split_double  (the loop over rows, tp_gemm_exact in
#       oracles/gemm/proven/gemm_rows.c, proven exact in the IEEE float
#       model like each row)
# in every recorded results.json that holds it. Nothing else changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0010-ieee-exact-gemm-rows.sh
# The texts below go to recorded/migrations/rewrite-statements.sh, which
# rewrites with `tolproof replay --rewrite-statements` and checks that only
# those texts changed and that every recorded run replays. Exit 0 when all
# of that holds, 1 otherwise. Re-runnable: a second run changes nothing.
set -euo pipefail
texts=$(mktemp)
trap 'rm -f "$texts"' EXIT
/usr/bin/python3 - >"$texts" <<'PY'
import json

TEXTS = {  # old text -> new text, as the op says it
    "exact sums by split-double accumulation (oracles/gemm/proven/gemm.c: each output row WP-proven exact in the "
    "IEEE float model for binary16 inputs; the loop over rows tested against MPFR, not proven)":
    "exact sums by split-double accumulation (oracles/gemm/proven/gemm.c, each output row, and gemm_rows.c, all "
    "rows: WP-proven exact in the IEEE float model for binary16 inputs)",
}
print(json.dumps(TEXTS))
PY
"$(dirname "$0")/rewrite-statements.sh" "$texts"
