#!/usr/bin/env bash
# `ninja bench`: runs each benchmark; the JSON lines they print are
# collected into build/bench/summary.json.
set -u
cd "$(dirname "$0")/../.."
mkdir -p build/bench
: > build/bench/lines.json
for b in "$@"; do
    echo "== $b"
    out=$(./"$b") || { echo "$out"; echo "$b failed" >&2; exit 1; }
    echo "$out"
    echo "$out" | grep '^{' >> build/bench/lines.json
done
{ printf '['; paste -sd, build/bench/lines.json; printf ']\n'; } > build/bench/summary.json
echo "wrote build/bench/summary.json"
