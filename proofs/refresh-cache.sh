#!/bin/bash
# proofs/refresh-cache.sh: prove every oracle cold, then replace the seed
# proofs/wp-cache with exactly the prover answers that run produced, so the
# seed holds no answer to a task no oracle sends any more. Run it after a
# change to an oracle, a lemma file, a driver or a prover, and commit the
# seed with the change (about 40 minutes on 2 cores). Exits non-zero, the
# seed untouched, unless every oracle is proved.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
build=${TP_BUILD_DIR:-$root/build}
mkdir -p "$build" || exit 2
cold=$(mktemp -d "$build/wp-cache-cold.XXXXXX") || exit 2
out=$(mktemp -d "$build/prove-cold.XXXXXX") || exit 2
trap 'rm -rf "$cold" "$out"' EXIT
# The oracles ninja proves: one `wp` edge each in config.ninja.
mapfile -t oracles < <(sed -nE 's|^build build/prove/[^ ]+\.json: wp ([^ ]+\.c).*|\1|p' config.ninja)
[ ${#oracles[@]} -gt 0 ] || { echo "refresh-cache.sh: no oracle in config.ninja (run ./configure)" >&2; exit 2; }
status=0
for f in "${oracles[@]}"; do
    TP_WP_SEED_DIR= TP_WP_CACHE_DIR=$cold proofs/wp.sh "$f" "$out" || status=1
done
if [ $status -ne 0 ]; then
    echo "refresh-cache.sh: an oracle was not proved; proofs/wp-cache left as it was" >&2
    exit 1
fi
rm -rf proofs/wp-cache.new && cp -r "$cold" proofs/wp-cache.new &&
    rm -rf proofs/wp-cache && mv proofs/wp-cache.new proofs/wp-cache || exit 2
echo "refresh-cache.sh: proofs/wp-cache: $(ls proofs/wp-cache | wc -l) answers from ${#oracles[@]} oracles"
