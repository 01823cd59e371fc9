#!/usr/bin/env bash
# Evidence bundles: a bundle of two emulated runs audits clean (directory
# and .tar.gz); its summary.md and summary.tex count every run as
# `tolproof summary` does (one tally: a case both too strict and too loose
# counts once, as both); its manifest follows docs/manifest.schema.json; one flipped
# byte in any file of it fails the audit and names that file; an edited
# verdict fails even with every hash fixed up (the audit re-derives it);
# and two bundles of separate runs with the same seeds are byte-identical
# but for timing.json. The .tar.gz files differ only because they contain
# timing.json, so the comparison is of the directory trees.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate schema=build/tests/tool_schema
. tests/tap.sh

# Two separate emulated runs of the same cases; proof reports as wp.sh
# writes them, with different times.
for r in A B; do
    # ragged_100x37x250: a case whose claim is both too strict and too loose
    "$emu" build/gen/gemm_fwd.plan.json "$tmp/$r/gemm" --case normal_64 --case tiny_1x1x1 --case ragged_100x37x250 \
        >/dev/null 2>&1 &&
        "$emu" build/gen/gelu_bwd.plan.json "$tmp/$r/gelu" --case normal_65536 >/dev/null 2>&1
    ok $? "emulated runs $r"
    mkdir -p "$tmp/$r/prove"
    printf '{"oracle": "gemm", "goals": 3, "proved": 3, "provers": ["Qed"], "seconds": %s, "tiers": "T1 T2"}\n' \
        "$([ $r = A ] && echo 1.5 || echo 2.5)" >"$tmp/$r/prove/gemm.json"
    printf '[wp] [Qed] Goal typed_b : Valid (%sms)\n[wp] [CVC4 1.8 (noFP) (cached)] Goal typed_a : Valid (3ms)\n[wp] [Failed] Goal typed_c\n' \
        "$([ $r = A ] && echo 1 || echo 7)" >"$tmp/$r/prove/gemm.log"
done
bundle() { "$tp" bundle --out "$tmp/$1" --proofs "$tmp/$2/prove" "$tmp/$2/gemm" "$tmp/$2/gelu" >/dev/null; }

bundle bA A
ok $? "bundle of run A"
[ -f "$tmp/bA.tar.gz" ]; ok $? "the bundle comes with its .tar.gz"
"$tp" audit "$tmp/bA" >"$tmp/audit.log"
ok $? "a clean bundle passes the audit"
"$tp" audit "$tmp/bA.tar.gz" >"$tmp/audit_tgz.log"
ok $? "its .tar.gz passes the audit"
for f in manifest.json timing.json summary.md summary.tex index.html results.tap proofs/gemm.json runs/gemm_fwd/results.json \
    runs/gemm_fwd/outputs/normal_64/C.npy plots/gemm_fwd/normal_64/C.svg plots/gelu_bwd/normal_65536/gi.svg; do
    [ -s "$tmp/bA/$f" ] || { echo "# missing $f"; false; }
done
ok $? "the bundle holds the manifest, timing, summaries, index.html, TAP log, proofs, results, tensors and plots"
grep -q '\\toprule' "$tmp/bA/summary.tex" && grep -q '\\bottomrule' "$tmp/bA/summary.tex" && grep -q 'gemm\\_fwd' "$tmp/bA/summary.tex"
ok $? "summary.tex is a booktabs table with escaped names"
! grep -q '"seconds"' "$tmp/bA/proofs/gemm.json" && grep -q '"seconds": 1.5' "$tmp/bA/timing.json"
ok $? "a proof's time is in timing.json, not in its report"
[ "$(tar -tvzf "$tmp/bA.tar.gz" | awk '$2 != "0/0" || $4 != "1970-01-01"' | wc -l)" = 0 ]
ok $? "the archive's members have owner 0/0 and mtime 0"

# one tally: summary.md's and summary.tex's rows carry `tolproof summary`'s
# counts (cases, pass, fail, refused, max err/bound, claim, contract met,
# first violation), and a case both too strict and too loose counts once
"$tp" summary "$tmp/A/gemm" "$tmp/A/gelu" >"$tmp/summary.out"
ok $? "tolproof summary reads the runs"
grep -q '^| gemm_fwd | .* | 0 / 0 / 2 / 1 | met on the selected cases | - | as expected |$' "$tmp/summary.out" &&
    grep -q '| ragged_100x37x250 | .* | too strict and too loose | ' "$tmp/bA/summary.md"
ok $? "a gemm case both too strict and too loose counts once, as both (two others are too loose)"
awk -F'|' '/^\| (gemm_fwd|gelu_bwd) \|/ { s = $2; for (i = 4; i <= 11; i++) s = s "|" $i; print s }' \
    "$tmp/summary.out" | sort >"$tmp/tally.summary"
awk -F'|' '/^\| (gemm_fwd|gelu_bwd) \|/ { s = $3; for (i = 7; i <= 14; i++) s = s "|" $i; print s }' \
    "$tmp/bA/summary.md" | sort >"$tmp/tally.md"
[ "$(wc -l <"$tmp/tally.summary")" = 2 ] && diff "$tmp/tally.summary" "$tmp/tally.md" >&2
ok $? "summary.md counts every run as tolproof summary does"
awk -F'|' '/^\| (gemm_fwd|gelu_bwd) \|/ { print $2 $4 $5 $6 $7 $8 $9 }' "$tmp/summary.out" |
    tr -s ' ' | sed 's/^ //; s/ $//' | sort >"$tmp/tally.expect"
awk -F' & ' '/^(gemm|gelu)/ { sub(/ [\\][\\]$/, "", $9); print $1, $4, $5, $6, $7, $8, $9 }' "$tmp/bA/summary.tex" |
    sed 's/[\\]_/_/g' | sort >"$tmp/tally.tex"
[ "$(wc -l <"$tmp/tally.expect")" = 2 ] && diff "$tmp/tally.expect" "$tmp/tally.tex" >&2
ok $? "so does summary.tex"

"$schema" docs/manifest.schema.json "$tmp/bA/manifest.json" >"$tmp/schema.log"
ok $? "the manifest follows docs/manifest.schema.json"
grep -q '"z3"' "$tmp/bA/manifest.json" && grep -q '"seed": 2' "$tmp/bA/manifest.json" && grep -q '"commit"' "$tmp/bA/manifest.json"
ok $? "the manifest records tool versions, seeds and the git commit"
sed 's/"tolproof_bundle": 3/"tolproof_bundle": 4/' "$tmp/bA/manifest.json" >"$tmp/bad_manifest.json"
"$schema" docs/manifest.schema.json "$tmp/bad_manifest.json" >/dev/null
[ $? = 1 ]; ok $? "a manifest of another format does not follow the schema"
sed '/"cvc4":/d' "$tmp/bA/manifest.json" >"$tmp/bad_manifest.json"
"$schema" docs/manifest.schema.json "$tmp/bad_manifest.json" | grep -q 'cvc4'
ok $? "a manifest without a prover's version does not follow the schema, and the error says which"

# one flipped byte, in every file in turn
(cd "$tmp/bA" && find . -type f | sed 's|^\./||' | sort) >"$tmp/files"
missed=0 count=0
while read -r f; do
    count=$((count + 1))
    rm -rf "$tmp/flip" && cp -r "$tmp/bA" "$tmp/flip"
    size=$(stat -c %s "$tmp/flip/$f")
    at=$((size / 2))
    byte=$(od -An -tu1 -j "$at" -N1 "$tmp/flip/$f" | tr -d ' ')
    printf "$(printf '\\%03o' $(((byte ^ 1) & 255)))" | dd of="$tmp/flip/$f" bs=1 seek="$at" conv=notrunc status=none
    "$tp" audit --quiet "$tmp/flip" >"$tmp/flip.log"
    rc=$?
    if [ $rc = 0 ] || ! grep -q "^not ok - $f: " "$tmp/flip.log"; then
        echo "# flipping byte $at of $f: audit exit $rc"
        missed=$((missed + 1))
    fi
done <"$tmp/files"
[ $missed = 0 ] && [ $count -ge 15 ]; ok $? "a flipped byte in any of the $count files fails the audit and names the file"

# an edited verdict, with its hash and the manifest's self-hash fixed up
rm -rf "$tmp/edit" && cp -r "$tmp/bA" "$tmp/edit"
r="$tmp/edit/runs/gemm_fwd/results.json" m="$tmp/edit/manifest.json"
sed -i '0,/"verdict": "pass"/s//"verdict": "fail"/' "$r"
sha=$(sha256sum "$r" | cut -d' ' -f1)
sed -i "s|\"runs/gemm_fwd/results.json\": \"[0-9a-f]*\"|\"runs/gemm_fwd/results.json\": \"$sha\"|" "$m"
at=$(grep -bo '"self_sha256": "' "$m" | tail -n 1 | cut -d: -f1)
self=$(head -c "$at" "$m" | sha256sum | cut -d' ' -f1)
sed -i "s|\"self_sha256\": \"[0-9a-f]*\"|\"self_sha256\": \"$self\"|" "$m"
"$tp" audit "$tmp/edit" >"$tmp/edit.log"
rc=$?
grep -q "^ok - manifest.json: all .* files match" "$tmp/edit.log"
ok $? "the edited bundle's hashes all match"
[ $rc = 1 ] && grep -q '^not ok - runs/gemm_fwd/results.json: first disagreement at .cases\[[0-9]*\].*verdict' "$tmp/edit.log"
ok $? "an edited verdict fails the audit by recomputation, naming the file and the field"

# an unlisted file, a missing file
rm -rf "$tmp/extra" && cp -r "$tmp/bA" "$tmp/extra" && echo x >"$tmp/extra/runs/gemm_fwd/note.txt"
"$tp" audit --quiet "$tmp/extra" | grep -q '^not ok - runs/gemm_fwd/note.txt: not listed'
ok $? "a file the manifest does not list fails the audit"
rm -rf "$tmp/gone" && cp -r "$tmp/bA" "$tmp/gone" && rm "$tmp/gone/plots/gemm_fwd/tiny_1x1x1/C.svg"
"$tp" audit --quiet "$tmp/gone" >/dev/null
[ $? = 1 ]; ok $? "a missing file fails the audit"
"$tp" audit "$tmp/nothing" >/dev/null
[ $? = 2 ]; ok $? "an unreadable bundle exits 2"

# same seeds, separate runs: identical but for timing.json
bundle bB B
ok $? "bundle of run B"
diff -r -x timing.json "$tmp/bA" "$tmp/bB" >"$tmp/diff.log"
ok $? "bundles of two runs with the same seeds are byte-identical apart from timing.json"
! cmp -s "$tmp/bA/timing.json" "$tmp/bB/timing.json"
ok $? "their timing.json files differ (kernel and proof times)"
mkdir -p "$tmp/xA" "$tmp/xB" && tar -xzf "$tmp/bA.tar.gz" -C "$tmp/xA" && tar -xzf "$tmp/bB.tar.gz" -C "$tmp/xB" &&
    mv "$tmp/xB/bB" "$tmp/xB/bA" && diff -r -x timing.json "$tmp/xA" "$tmp/xB" >/dev/null
ok $? "so are the trees their archives hold"
bundle bA A
cmp -s "$tmp/bA/manifest.json" "$tmp/bB/manifest.json"
ok $? "re-bundling into an existing bundle directory replaces it"

tap_end
