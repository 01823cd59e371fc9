#!/usr/bin/env bash
# Migration 0012 (recorded/MIGRATIONS.md): softmax_fwd's row sum beyond
# 65536 elements and softmax_xent_bwd's row dot product at every length
# now come from the proven any-order sum bounds (tp_sum_bound_rn, and
# tp_sum_bound_long_rn up to 262144 terms, T3, through
# oracles/common/sum_interval.h) instead of the same bound computed by hand
# in directed rounding. The long-row interval is that of 1.0087890625 n
# terms of the short constant, which holds the hand-written one: the
# admitted sets only widen.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0012-proven-long-row-sums.sh [RUN_DIR...]
# (default: every recorded run of op softmax_fwd or softmax_xent_bwd, the
# verdict corpus included; no other op's code changed)
# The runs go to recorded/migrations/widen-fields.sh, which re-generates
# `allowed`, `loose_elements` and `max_bound` where only they differ,
# checks that each change is a widening, that nothing else under recorded/
# changed and that the runs replay. Exit 0 when all of that holds, 1
# otherwise. Re-runnable: a second run changes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
    mapfile -t runs < <(/usr/bin/python3 - <<'PY'
import glob, json, os
for plan in sorted(glob.glob("recorded/*/*/plan.json") + glob.glob("recorded/variants/*/*/plan.json")):
    run = os.path.dirname(plan)
    if os.path.exists(f"{run}/results.json") and json.load(open(plan)).get("op") in ("softmax_fwd", "softmax_xent_bwd"):
        print(run)
PY
    )
fi
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded softmax run under recorded/" >&2; exit 2; }
exec recorded/migrations/widen-fields.sh "${runs[@]}"
