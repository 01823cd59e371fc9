#!/usr/bin/env bash
# The shared step of a migration that only widens admitted sets
# (recorded/MIGRATIONS.md): re-generates the fields `allowed`,
# `loose_elements` and `max_bound` of the given recorded runs where the
# recomputation differs from the record in those fields alone.
#
# Usage, from a migration script (after `./configure && ninja lib`):
#     recorded/migrations/widen-fields.sh RUN_DIR...
# It rewrites with `tolproof replay --rewrite-only allowed,loose_elements,max_bound`;
# then checks, field by field, that every change is a widening (each
# changed `allowed` interval of a listed element holds the old one, each
# `max_bound`, the largest admitted distance, grew, each `loose_elements`
# count, the elements where the audited tolerance admits more than the
# model, shrank), that every other file under recorded/ is unchanged byte
# for byte, and that the runs replay; prints each change. Exit 0 when all
# of that holds, 1 otherwise, 2 on bad usage. Re-runnable: a second run
# changes nothing. (Migration 0007 carries its own copy of these steps for
# two of the fields; it stays as it was committed.)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 RUN_DIR..." >&2; exit 2; }
runs=()
for d in "$@"; do runs+=("$(realpath --relative-to="$(dirname "$0")/../.." "$d")"); done
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib first" >&2; exit 2; }
for d in "${runs[@]}"; do
    [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] || { echo "$0: $d: not a recorded run" >&2; exit 2; }
done
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
for r in "${runs[@]}"; do
    mkdir -p "$before/$r"
    cp "$r/results.json" "$before/$r/results.json"
done
find recorded -type f ! -name results.json -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"

if ! "$tp" replay --quiet --rewrite-only allowed,loose_elements,max_bound --expect-from build/gen "${runs[@]}" \
    >"$before/rewrite.log"; then
    grep -E '^not ok' "$before/rewrite.log" >&2 || true
    echo "$0: FAILED: the runs above differ in more than allowed, loose_elements and max_bound and were left as they are" >&2
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


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


files = changed = intervals = counts = bounds = 0
for run in runs:
    old = json.load(open(f"{before}/{run}/results.json"))
    new = json.load(open(f"{run}/results.json"))
    files += 1
    out = []
    diffs(old, new, "", out)
    changed += bool(out)
    for path, a, b in out:
        if path.endswith(".allowed"):
            if not (len(a) == len(b) == 2 and b[0] <= a[0] and a[1] <= b[1]):
                sys.exit(f"FAILED: {run}: {path} {a} -> {b} is not a widening")
            intervals += 1
        elif path.endswith(".loose_elements"):
            if not (isinstance(a, int) and isinstance(b, int) and b <= a):
                sys.exit(f"FAILED: {run}: {path} {a} -> {b} grew")
            counts += 1
        elif path.endswith(".max_bound"):
            if not (number(a) and number(b) and a <= b):
                sys.exit(f"FAILED: {run}: {path} {a} -> {b} shrank")
            bounds += 1
        else:
            sys.exit(f"FAILED: {run}: {path} changed ({a} -> {b})")
        print(f"  {run}{path}: {a} -> {b}")
print(f"{files} results.json, {changed} rewritten: {intervals} worst-element intervals widened, "
      f"{counts} loose-element counts lowered, {bounds} largest bounds grown, nothing else changed")
PY

"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; ${#runs[@]} runs replay"
