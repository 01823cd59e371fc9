#!/usr/bin/env bash
# Migration 0007 (recorded/MIGRATIONS.md): the admitted sets of the ops
# that model a device function within its vendor ulp bound (tanhf in GELU,
# expf in softmax_fwd, rsqrtf in LayerNorm) now count "k ulps" as the
# vendors state them (oracles/common/vendor_ulp.h): within k ulp(c) of the
# correctly rounded c, ulp(c) the spacing at and above |c|, or within k
# binary32 values of c. They were k binary32 values only, which admits half
# the vendor's allowance below a power of two. The sets only widen.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0007-vendor-ulps.sh
# It rewrites with `tolproof replay --rewrite-only allowed,loose_elements`,
# which replaces a case only when its recomputation differs from the record
# under those two fields alone (the admitted interval of a listed worst
# element, and the count of elements where the audited tolerance is looser
# than the admitted set); then checks, field by field, that every change is
# a widening (each changed `allowed` interval holds the old one; each
# changed `loose_elements` count is at most the old one), that every other
# file under recorded/ is unchanged byte for byte, and that every recorded
# run replays. Exit 0 when all of that holds, 1 otherwise. Re-runnable: a
# second run changes nothing.
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

if ! "$tp" replay --quiet --rewrite-only allowed,loose_elements --expect-from build/gen "${runs[@]}" \
    >"$before/rewrite.log"; then
    grep -E '^not ok' "$before/rewrite.log" >&2 || true
    echo "$0: FAILED: the runs above differ in more than allowed and loose_elements and were left as they are" >&2
    exit 1
fi
sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than results.json changed" >&2; exit 1; }

/usr/bin/python3 - "$before" "${runs[@]}" <<'PY'
import json, sys

before, runs = sys.argv[1], sys.argv[2:]


def diffs(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            diffs(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and not (
            path.endswith(".allowed") and a != b):
        for i, (x, y) in enumerate(zip(a, b)):
            diffs(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append((path, a, b))


files = changed = intervals = counts = 0
for run in runs:
    old = json.load(open(f"{before}/{run}/results.json"))
    new = json.load(open(f"{run}/results.json"))
    files += 1
    out = []
    diffs(old, new, "", out)
    if out:
        changed += 1
    for path, a, b in out:
        if path.endswith(".allowed"):
            if not (len(a) == len(b) == 2 and b[0] <= a[0] and a[1] <= b[1]):
                sys.exit(f"FAILED: {run}: {path} {a} -> {b} is not a widening")
            intervals += 1
        elif path.endswith(".loose_elements"):
            if not (isinstance(a, int) and isinstance(b, int) and b <= a):
                sys.exit(f"FAILED: {run}: {path} {a} -> {b} grew")
            counts += 1
        else:
            sys.exit(f"FAILED: {run}: {path} changed ({a} -> {b})")
        print(f"  {run}{path}: {a} -> {b}")
print(f"{files} results.json, {changed} rewritten: {intervals} worst-element intervals widened, "
      f"{counts} loose-element counts lowered, nothing else changed")
PY

"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; ${#runs[@]} runs replay"
