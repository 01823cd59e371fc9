#!/usr/bin/env bash
# Migration 0004 (recorded/MIGRATIONS.md): recorded output tensors stored as
# .tpr instead of .npy (cli/tp_residual_codec.h: per element the distance,
# in the format's order of bit patterns, from the format's rounding of the
# op's exact reference, zlib-compressed, with the SHA-256 of the .npy). The
# .npy bytes are what every .tpr decodes to; nothing else changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib
# plans` and after migrations 0001 to 0003:
#     recorded/migrations/0004-compact-outputs.sh
# It runs `tolproof pack` on every run under recorded/*/*/ and
# recorded/variants/*/*/ (each .tpr is checked to decode to its .npy byte
# for byte before the .npy is removed). Then it checks:
#   - no output .npy is left, and each has become the .tpr of that name;
#   - every other file under recorded/ (results.json, plan.json,
#     timing.json, results.md, results.tap, scripts) unchanged byte for byte;
#   - a copy of recorded/ unpacked (`tolproof unpack`) gives back every
#     .npy with the SHA-256 it had;
#   - every recorded run replays (`tolproof replay --expect-from build/gen`).
# It prints the sizes of recorded/ before and after (du -sb, and the sum of
# the sizes of the files git would track there), and the outputs' bytes per
# format and form. Exit 0 when all of that holds (whether or not anything
# needed packing), 1 otherwise. Re-runnable: a second run packs nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib plans first" >&2; exit 2; }
ls build/gen/*.plan.json >/dev/null 2>&1 || { echo "$0: no build/gen/*.plan.json: run ninja plans first" >&2; exit 2; }
shopt -s nullglob
runs=()
for d in recorded/*/*/ recorded/variants/*/*/; do
    [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] && runs+=("${d%/}")
done
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run under recorded/" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tracked_bytes() { # the files git tracks, or would after `git add recorded`, that exist
    git ls-files -co --exclude-standard -z recorded |
        /usr/bin/python3 -c 'import os, sys; print(sum(os.path.getsize(p) for p in sys.stdin.read().split("\0") if os.path.isfile(p)))'
}

before_du=$(du -sb recorded | cut -f1) before_tracked=$(tracked_bytes)
# the output tensors (not the input copies input_NAME.npy) and everything else
find recorded -path '*/outputs/*' -name '*.npy' ! -name 'input_*' -print0 | sort -z | xargs -0 -r sha256sum >"$work/outputs.sha256"
find recorded -type f ! -path '*/outputs/*' -print0 | sort -z | xargs -0 sha256sum >"$work/other.sha256"
find recorded -path '*/outputs/*' -name 'input_*' -print0 | sort -z | xargs -0 -r sha256sum >>"$work/other.sha256"
/usr/bin/python3 - recorded >"$work/before.txt" <<'PY'
import os, sys
by = {}
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(root, f)
        if "/outputs/" in p and f.endswith(".npy") and not f.startswith("input_"):
            descr = open(p, "rb").read(128).split(b"'descr': '")[1][:3].decode()
            k = {"<f2": "binary16", "<f4": "binary32", "<V2": "bfloat16"}.get(descr, descr)
            n, b = by.get(k, (0, 0))
            by[k] = (n + 1, b + os.path.getsize(p))
for k in sorted(by):
    print("  %s: %d .npy, %d bytes" % (k, by[k][0], by[k][1]))
PY

if ! "$tp" pack "${runs[@]}" >"$work/pack.log"; then
    grep '^not ok' "$work/pack.log" >&2
    echo "$0: FAILED: the outputs above could not be packed (their .npy kept)" >&2
    exit 1
fi
left=$(find recorded -path '*/outputs/*' -name '*.npy' ! -name 'input_*' | wc -l)
[ "$left" = 0 ] || { echo "$0: FAILED: $left output .npy left" >&2; exit 1; }
missing=0
while read -r _ f; do
    [ -f "${f%.npy}.tpr" ] || { echo "$0: FAILED: ${f%.npy}.tpr missing" >&2; missing=1; }
done <"$work/outputs.sha256"
[ $missing = 0 ] || exit 1
sha256sum --quiet --strict -c "$work/other.sha256" ||
    { echo "$0: FAILED: a file other than an output .npy changed" >&2; exit 1; }
mkdir -p "$work/copy"
cp -r recorded "$work/copy/"
(cd "$work/copy" && "$OLDPWD/$tp" unpack "${runs[@]}" >"$work/unpack.log" && sha256sum --quiet --strict -c "$work/outputs.sha256") ||
    { grep '^not ok' "$work/unpack.log" >&2; echo "$0: FAILED: the .tpr files do not decode to the .npy bytes" >&2; exit 1; }
"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$work/replay.log" ||
    { grep '^not ok' "$work/replay.log" >&2; echo "$0: FAILED: the packed runs do not replay" >&2; exit 1; }

after_du=$(du -sb recorded | cut -f1) after_tracked=$(tracked_bytes)
echo "${#runs[@]} runs: $(grep -o '[0-9]* output(s) packed' "$work/pack.log" | awk '{s += $1} END {print s}') output(s) packed," \
    "$(wc -l <"$work/outputs.sha256") .npy decoded back byte for byte; every other file unchanged; every run replays"
echo "recorded/: du -sb $before_du -> $after_du bytes; tracked files $before_tracked -> $after_tracked bytes"
echo "outputs before:"
cat "$work/before.txt"
echo "outputs after:"
/usr/bin/python3 - recorded <<'PY'
import os, sys
by = {}
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(root, f)
        if "/outputs/" in p and f.endswith(".tpr"):
            h = open(p, "rb").read(10)
            k = ("binary32" if h[8] == 4 else "binary16/bfloat16", "distances" if h[9] == 1 else "unpredicted")
            n, b = by.get(k, (0, 0))
            by[k] = (n + 1, b + os.path.getsize(p))
for k in sorted(by):
    print("  %s, %s: %d .tpr, %d bytes" % (k[0], k[1], by[k][0], by[k][1]))
PY
