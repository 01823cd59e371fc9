#!/usr/bin/env bash
# Unpacks an archive from recorded/record-variants.sh into
# recorded/variants/DEVICE/NAME/, packs its outputs as .tpr (tolproof pack),
# re-checks it at once (tolproof replay),
# then prints the verdict-quality table of everything recorded for DEVICE.
# Usage: recorded/import-variants.sh ARCHIVE DEVICE (DEVICE names the GPU,
# e.g. nvidia-h200).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: recorded/import-variants.sh ARCHIVE DEVICE" >&2; exit 2; }
archive=$1 device=$2
case $device in
    */* | .* | "") echo "import-variants.sh: DEVICE $device: expected a plain name such as nvidia-h200" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$archive" -C "$tmp"
shopt -s nullglob
runs=("$tmp"/verdict-runs/*/)
[ ${#runs[@]} -gt 0 ] || { echo "import-variants.sh: $archive holds no verdict-runs/NAME directory" >&2; exit 2; }
mkdir -p "recorded/variants/$device"
for run in "${runs[@]}"; do
    name=$(basename "$run")
    rm -rf "recorded/variants/$device/$name"
    cp -r "$run" "recorded/variants/$device/$name"
done
# outputs stored compactly (.tpr, recorded/MIGRATIONS.md 0004)
build/tolproof pack "recorded/variants/$device"/*/
build/tolproof replay --quiet --expect-from build/gen "recorded/variants/$device"/*/
rc=0
build/tolproof verdicts --json "build/verdicts-$device.json" "recorded/variants/$device"/*/ || rc=$?
# 1: tolproof flagged a correct variant, a result to look at, not an import failure
[ $rc -le 1 ]
