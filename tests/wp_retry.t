#!/usr/bin/env bash
# proofs/wp.sh retries what a prover failed on instead of reading the
# failure back from its cache: a cache in which every answer for an oracle
# is "failed" (as a prover that crashed leaves it) still ends in every goal
# proved, through the retry pass, whose answers replace the failures; and
# wp.sh deletes nothing in the cache, which may be the user's.
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh

src=oracles/common/proven/tp_div_box.c
cache=$tmp/cache
TP_WP_CACHE_DIR=$cache proofs/wp.sh "$src" "$tmp/cold" >"$tmp/cold.out" 2>&1
ok $? "a cold proof of $src fills a private cache"
nfiles=$(ls "$cache"/*.json 2>/dev/null | wc -l)
[ "$nfiles" -gt 0 ]; ok $? "the cache holds answers ($nfiles)"

# every cached answer turned into a prover failure
for f in "$cache"/*.json; do
    p=$(sed -nE 's/.*"prover": *("[^"]*").*/\1/p' "$f")
    printf '{ "prover": %s, "verdict": "failed" }\n' "$p" >"$f"
done
# and an entry of some other run (no goal of this oracle has its hash):
# the cache may be the user's, and wp.sh deletes nothing in it
foreign=$cache/0123456789abcdef0123456789abcdef.json
printf '{ "prover": "Z3", "verdict": "failed" }\n' >"$foreign"
TP_WP_CACHE_DIR=$cache proofs/wp.sh "$src" "$tmp/warm" >"$tmp/warm.out" 2>&1
ok $? "with every cached answer a failure, every goal is still proved"
grep -q "goals left unproved; trying them again" "$tmp/warm.out"
ok $? "the failures were left to the retry pass"
TP_WP_CACHE_DIR=$cache proofs/wp.sh "$src" "$tmp/again" >"$tmp/again.out" 2>&1
ok $? "a later run proves every goal"
! grep -q "trying them again" "$tmp/again.out"
ok $? "and needs no retry: the retry's answers replaced the failures in the cache"
grep -qE '"verdict": *"failed"' "$foreign"
ok $? "another run's cache entry is left as it was"
grep -q '"proved": \([0-9]*\), ' "$tmp/warm/tp_div_box.json" &&
    [ "$(sed -nE 's/.*"goals": ([0-9]+), "proved": ([0-9]+).*/\1 \2/p' "$tmp/warm/tp_div_box.json" | awk '{print ($1 == $2)}')" = 1 ]
ok $? "the summary counts every goal proved"

tap_end
