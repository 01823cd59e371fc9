#!/usr/bin/env bash
# Runs every compiled CUDA harness on the GPU of this machine and packs the
# run directories into one archive, ready for recorded/import.sh on any
# machine. Usage: recorded/record.sh [ARCHIVE] (default build/runs.tar.gz)
set -euo pipefail
cd "$(dirname "$0")/.."
archive=${1:-build/runs.tar.gz}
shopt -s nullglob
harnesses=()
for f in build/harnesses/cuda/*; do
    [ -x "$f" ] && [ -f "$f" ] && harnesses+=("$f")
done
if [ ${#harnesses[@]} -eq 0 ]; then
    echo "record.sh: no harness in build/harnesses/cuda (run 'ninja harnesses' first)" >&2
    exit 2
fi
status=0
for h in "${harnesses[@]}"; do
    contract=${h##*/}
    echo "== $contract"
    rc=0
    "$h" --out "build/runs/cuda/$contract" || rc=$?
    case $rc in
        0|1) ;;                       # 1: a verdict other than the expected one, a result too
        3) echo "no GPU: nothing recorded" >&2; exit 3 ;;
        *) status=2 ;;
    esac
done
tar -czf "$archive" -C build/runs cuda
echo "packed $(du -h "$archive" | cut -f1) into $archive"
exit $status
