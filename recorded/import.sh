#!/usr/bin/env bash
# Unpacks an archive from recorded/record.sh into recorded/DEVICE/ and
# re-checks it at once, its outputs packed as .tpr (tolproof pack). Usage:
# recorded/import.sh ARCHIVE DEVICE
# (DEVICE names the GPU, e.g. nvidia-h100).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: recorded/import.sh ARCHIVE DEVICE" >&2; exit 2; }
archive=$1 device=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$archive" -C "$tmp"
mkdir -p "recorded/$device"
for run in "$tmp"/cuda/*/; do
    contract=$(basename "$run")
    rm -rf "recorded/$device/$contract"
    cp -r "$run" "recorded/$device/$contract"
    # timings are kept, but they are not part of what a replay re-derives
done
# outputs stored compactly (.tpr, recorded/MIGRATIONS.md 0004): each checked
# to decode to the GPU's .npy byte for byte before that is removed
build/tolproof pack "recorded/$device"/*/
build/tolproof replay --expect-from build/gen "recorded/$device"/*/
