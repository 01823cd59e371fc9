#!/usr/bin/env bash
# Runs every compiled variant harness (build/variants/cuda/NAME, from
# kernels/variants/NAME.hip) on the GPU of this machine into
# build/verdict-runs/NAME and packs build/verdict-runs into one archive,
# ready for recorded/import-variants.sh on any machine.
# Usage: recorded/record-variants.sh [ARCHIVE] (default build/verdict-runs.tar.gz)
# Exit status: 0 every harness ran (exit 0 or 1: a verdict other than the
# expected one, a false alarm or a wrong variant not caught, is a result
# too, which `tolproof verdicts` tabulates), 2 some harness refused a case
# it was not expected to refuse or failed (the others still ran; refused
# and error cases are recorded in their results.json), 3 no GPU (nothing
# packed).
set -euo pipefail
cd "$(dirname "$0")/.."
archive=${1:-build/verdict-runs.tar.gz}
shopt -s nullglob
harnesses=()
for f in build/variants/cuda/*; do
    [ -x "$f" ] && [ -f "$f" ] && harnesses+=("$f")
done
if [ ${#harnesses[@]} -eq 0 ]; then
    echo "record-variants.sh: no harness in build/variants/cuda (run 'ninja variants' first)" >&2
    exit 2
fi
# a run left from an earlier corpus would be packed with this one
rm -rf build/verdict-runs
mkdir -p build/verdict-runs
status=0
for h in "${harnesses[@]}"; do
    name=${h##*/}
    echo "== $name"
    rc=0
    # every variant case takes well under a second on an H100/H200: 10 s
    # cuts the hanging variant (gemm_fwd_stalled_tile) short of the 60 s default
    "$h" --out "build/verdict-runs/$name" --case-timeout 10 || rc=$?
    case $rc in
        0|1) ;;
        3) echo "no GPU: nothing recorded" >&2; exit 3 ;;
        *) echo "$name: exit $rc (refused cases or errors: see build/verdict-runs/$name/results.md)" >&2
           status=2 ;;
    esac
done
tar -czf "$archive" -C build verdict-runs
echo "packed ${#harnesses[@]} variant runs ($(du -h "$archive" | cut -f1)) into $archive"
exit $status
