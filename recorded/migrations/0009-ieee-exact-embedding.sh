#!/usr/bin/env bash
# Migration 0009 (recorded/MIGRATIONS.md): the Evidence statement of the
# embedding gradient's exact sums says that they are now proven exact in
# WP's IEEE float model. Rewrites the text of
#   embedding_bwd.exact.double_rows  (the scatter moved to
#       oracles/embedding/proven/embedding_scatter.c, proven exact in the
#       IEEE float model for binary16 inputs)
# in every recorded results.json that holds it. Nothing else changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0009-ieee-exact-embedding.sh
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
    "exact sums per row in double (oracles/embedding/proven/embedding.c, WP-proven T1+T2 in the real model; "
    "exactness of each double addition for n <= 8192 argued there and tested against MPFR)":
    "exact sums per row in double (oracles/embedding/proven/embedding_scatter.c, WP-proven exact in the IEEE "
    "float model for binary16 inputs and at most 8192 queries)",
}
print(json.dumps(TEXTS))
PY
"$(dirname "$0")/rewrite-statements.sh" "$texts"
