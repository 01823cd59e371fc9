#!/usr/bin/env bash
# proofs/wp.sh retries what a prover failed on instead of reading the
# failure back from its cache: a cache in which every answer for an oracle
# is "failed" (as a prover that crashed leaves it) still ends in every goal
# proved, through the retry pass, whose answers replace the failures; and
# wp.sh deletes nothing in the cache, which may be the user's. And the
# committed seed (proofs/wp-cache): a fresh cache proves the oracle from it
# with no prover run, and TP_WP_SEED_DIR= leaves it out.
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh

src=oracles/common/proven/tp_div_box.c
cache=$tmp/cache
TP_WP_SEED_DIR= TP_WP_CACHE_DIR=$cache proofs/wp.sh "$src" "$tmp/cold" >"$tmp/cold.out" 2>&1
ok $? "a cold proof of $src (TP_WP_SEED_DIR=) fills a private cache"
nfiles=$(ls "$cache"/*.json 2>/dev/null | wc -l)
nseed=$(ls proofs/wp-cache/*.json | wc -l)
[ "$nfiles" -gt 0 ] && [ "$nfiles" -lt "$nseed" ]
ok $? "the cache holds this oracle's answers ($nfiles), not the seed's $nseed"
grep -q 'updated:' "$tmp/cold/tp_div_box.log"; ok $? "the cold proof ran the provers"

# the seed: a fresh cache, every answer read back, no prover started
TP_WP_CACHE_DIR=$tmp/seeded proofs/wp.sh "$src" "$tmp/seed" >"$tmp/seed.out" 2>&1
ok $? "a proof from the committed seed proves every goal"
grep -q '\[Cache\] found:' "$tmp/seed/tp_div_box.log" && ! grep -q 'updated:' "$tmp/seed/tp_div_box.log"
ok $? "every prover answer came from the seed (WP's cache line: found, none updated)"
TP_WP_SEED_DIR=$tmp/none TP_WP_CACHE_DIR=$tmp/x proofs/wp.sh "$src" "$tmp/x" >"$tmp/none.out" 2>&1
[ $? = 2 ] && grep -q "TP_WP_SEED_DIR: no such directory: $tmp/none" "$tmp/none.out"
ok $? "a missing seed directory is an error that names it"

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
