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
# It rewrites with `tolproof replay --rewrite-statements`, which changes a
# case only when everything but its Evidence and Non-claims re-derives
# identically; then checks that each rewritten file is its old bytes with
# exactly those old texts replaced by the new ones (nothing else), that
# every other file under recorded/ is unchanged byte for byte, and that
# every recorded run replays. Exit 0 when all of that holds, 1 otherwise.
# Re-runnable: a second run changes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib first" >&2; exit 2; }
runs=()
for d in recorded/*/*/ recorded/variants/*/*/; do
    [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] && runs+=("${d%/}")
done
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run under recorded/" >&2; exit 2; }
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
for r in "${runs[@]}"; do
    mkdir -p "$before/$r"
    cp "$r/results.json" "$before/$r/results.json"
done
find recorded -type f ! -name results.json -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"

if ! "$tp" replay --quiet --rewrite-statements --expect-from build/gen "${runs[@]}" >"$before/rewrite.log"; then
    grep -E '^(not ok|# .*not rewritten)' "$before/rewrite.log" >&2 || true
    echo "$0: FAILED: the runs above differ in more than their statements and were left as they are" >&2
    exit 1
fi
sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than results.json changed" >&2; exit 1; }

/usr/bin/python3 - "$before" "${runs[@]}" <<'PY'
import json, sys

before, runs = sys.argv[1], sys.argv[2:]
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
counts = {new: 0 for new in TEXTS.values()}
files = changed = 0
for run in runs:
    old = open(f"{before}/{run}/results.json", "rb").read().decode()
    new = open(f"{run}/results.json", "rb").read().decode()
    files += 1
    want = old
    for o, n in TEXTS.items():
        want = want.replace(json.dumps(o), json.dumps(n))
    if new != want:
        sys.exit(f"FAILED: {run}/results.json is not its old bytes with the two statement texts replaced")
    if new != old:
        changed += 1
    for n in TEXTS.values():
        counts[n] += new.count(json.dumps(n))
print(f"{files} results.json, {changed} rewritten: only the two statement texts replaced, every other byte kept")
for n, c in counts.items():
    print(f"  {c:4d} x {n[:90]}...")
PY

"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; ${#runs[@]} runs replay"
