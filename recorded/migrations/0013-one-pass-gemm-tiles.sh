#!/usr/bin/env bash
# Migration 0013 (recorded/MIGRATIONS.md): the exact GEMM's Evidence names
# the one-pass tile that now computes both exact sums on the CPU. Rewrites
# the texts of
#   gemm.exact.split_double  (oracles/gemm/proven/gemm_tile.c: sum a b and
#       sum |a b| in one pass, each tile WP-proven exact in the IEEE float
#       model; the tiles' arrangement, oracles/gemm/gemm_tiles.c, tested,
#       not proven; was gemm.c's rows and gemm_rows.c's loop over them)
#   gemm.exact.k_chunks      (the tiles on K-chunks of 8192 terms, combined
#       in 128-bit integers by gemm_tiles.c with gemm_long.c's steps)
# in the recorded runs of op gemm (those that say gemm.exact.split_double:
# every one), under those ids only: op contraction says the same K-chunk
# text as its own contraction.exact.k_chunks, and its sums are unchanged.
# Nothing else changes: the sums are the same exact values, normalized the
# same way, so every admitted interval, verdict and bound re-derives bit
# for bit.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0013-one-pass-gemm-tiles.sh
# The texts below go to recorded/migrations/rewrite-statements.sh, which
# rewrites with `tolproof replay --rewrite-statements` and checks that only
# those texts changed and that those runs replay. Exit 0 when all
# of that holds, 1 otherwise. Re-runnable: a second run changes nothing.
set -euo pipefail
texts=$(mktemp)
trap 'rm -f "$texts"' EXIT
/usr/bin/python3 - >"$texts" <<'PY'
import json

TEXTS = {  # old text -> new text, as the op says it
    "exact sums by split-double accumulation (oracles/gemm/proven/gemm.c, each output row, and gemm_rows.c, all "
    "rows: WP-proven exact in the IEEE float model for binary16 inputs)":
    {"ids": ["gemm.exact.split_double"], "text":
    "exact sums by split-double accumulation, sum a b and sum |a b| in one pass (oracles/gemm/proven/gemm_tile.c, "
    "each tile of one row and 8 columns: WP-proven exact in the IEEE float model for binary16 inputs; the tiles over "
    "rows, column panels and K-blocks, oracles/gemm/gemm_tiles.c, tested against 128-bit integer sums, not proven)"},
    "K > 8192: the split-double sums run on K-chunks of at most 8192 and are combined exactly in 128-bit integers "
    "(oracles/gemm/gemm_long.c argues it; tested against 128-bit integer sums at K = 65536)":
    {"ids": ["gemm.exact.k_chunks"], "text":
    "K > 8192: the one-pass tiles run on K-chunks of at most 8192 terms, combined exactly in 128-bit integers "
    "(oracles/gemm/gemm_tiles.c with the steps of oracles/gemm/gemm_long.c, which argues them; tested against "
    "128-bit integer sums at K = 65536)"},
}
print(json.dumps(TEXTS))
PY
cd "$(dirname "$0")/../.."
mapfile -t runs < <(grep -l '"gemm.exact.split_double"' recorded/*/*/results.json recorded/variants/*/*/results.json |
    xargs -n1 dirname)
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run of op gemm" >&2; exit 1; }
recorded/migrations/rewrite-statements.sh "$texts" "${runs[@]}"
