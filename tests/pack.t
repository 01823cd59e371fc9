#!/usr/bin/env bash
# Compact recorded outputs (.tpr, cli/tp_residual_codec.h): `tolproof pack`
# replaces a run's output .npy files by .tpr, `unpack` restores them byte
# for byte; replay, bundle and audit read .tpr; a .tpr that is corrupt,
# truncated, beside its .npy, or whose exact reference changed is one error
# line naming the file (the SHA-256 check), never a different tensor.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh
plan=build/gen/gemm_fwd.plan.json
small=(--case normal_64 --case ragged_100x37x250 --case tiny_1x1x1 --case special_64x64x32)

"$emu" "$plan" "$tmp/run" "${small[@]}" >/dev/null 2>&1
ok $? "an emulated GEMM run"
cp -r "$tmp/run" "$tmp/orig"
"$tp" pack "$tmp/run" >"$tmp/pack.log"
[ $? = 0 ] && grep -q "^ok - $tmp/run: 4 output(s) packed, 0 already .tpr, 0 left as they were; [0-9]* bytes -> [0-9]*$" \
    "$tmp/pack.log" && [ -z "$(find "$tmp/run/outputs" -name '*.npy')" ] &&
    [ "$(find "$tmp/run/outputs" -name '*.tpr' | wc -l)" = 4 ]
ok $? "pack: 4 outputs packed, no .npy left ($(cut -d';' -f2 "$tmp/pack.log"))"
"$tp" pack "$tmp/run" | grep -q "0 output(s) packed, 4 already .tpr"
ok $? "pack again: nothing to do"
"$tp" replay "$tmp/orig" | sed "s|$tmp/orig|RUN|" >"$tmp/orig.replay"
"$tp" replay "$tmp/run" | sed "s|$tmp/run|RUN|" >"$tmp/run.replay"
[ ${PIPESTATUS[0]} = 0 ] && cmp -s "$tmp/orig.replay" "$tmp/run.replay"
ok $? "the packed run replays, line for line as the .npy run"
cp -r "$tmp/run" "$tmp/back"
"$tp" unpack "$tmp/back" >/dev/null && diff -r "$tmp/orig" "$tmp/back" >/dev/null
ok $? "unpack restores every file byte for byte"

# --case: only the cases named
cp -r "$tmp/run" "$tmp/one"
"$tp" unpack --case normal_64 "$tmp/one" >"$tmp/one.log"
[ $? = 0 ] && grep -q "^ok - $tmp/one: 1 output(s) unpacked" "$tmp/one.log" &&
    [ "$(find "$tmp/one/outputs" -name '*.npy' ! -name 'input_*' | sed 's|.*/outputs/||')" = "normal_64/C.npy" ] &&
    cmp -s "$tmp/one/outputs/normal_64/C.npy" "$tmp/orig/outputs/normal_64/C.npy"
ok $? "unpack --case normal_64 restores that case's output only, byte for byte"
"$tp" pack --case normal_64 "$tmp/one" >/dev/null && diff -r "$tmp/run" "$tmp/one" >/dev/null
ok $? "pack --case normal_64 packs it again, as the whole run's pack did"
"$tp" unpack --case no_such_case "$tmp/one" >"$tmp/nocase.log"
[ $? = 2 ] && grep -q "^not ok - $tmp/one: --case no_such_case: no such case in its results.json$" "$tmp/nocase.log"
ok $? "a case no run has is an error that names it (exit 2)"

# a copy (NaN payloads, signed zeros: the special fill) and a computed op, recorded on the GPU
for r in embedding_fwd gelu_fwd; do
    cp -r "recorded/nvidia-h200/$r" "$tmp/$r"
    "$tp" unpack "$tmp/$r" >/dev/null && cp -r "$tmp/$r" "$tmp/$r.npy" && "$tp" pack "$tmp/$r" >/dev/null &&
        "$tp" unpack "$tmp/$r" >/dev/null && diff -r "$tmp/$r.npy" "$tmp/$r" >/dev/null
    ok $? "recorded $r: unpack, pack, unpack gives the same bytes"
done

# bundle and audit of a packed run
"$tp" bundle --out "$tmp/bundle" --no-proofs "$tmp/run" >"$tmp/bundle.log" 2>&1 &&
    [ -f "$tmp/bundle/runs/gemm_fwd/outputs/normal_64/C.tpr" ] && "$tp" audit "$tmp/bundle" >"$tmp/audit.log" 2>&1
ok $? "a bundle of the packed run holds the .tpr files and audits"

# hostile .tpr files: one line naming the file, exit 1
damaged() { # NAME EXPECTED-TEXT: replays $tmp/NAME, expects one not-ok line with the text
    "$tp" replay --quiet "$tmp/$1" >"$tmp/$1.log" 2>&1
    local rc=$?
    [ $rc = 1 ] && [ "$(grep -c '^not ok' "$tmp/$1.log")" = 1 ] && grep -q "^not ok - .*$2" "$tmp/$1.log"
    ok $? "$1: $(grep -m1 '^not ok' "$tmp/$1.log" | cut -c1-220)"
}
f=outputs/normal_64/C.tpr
cp -r "$tmp/run" "$tmp/flipped"
size=$(stat -c %s "$tmp/flipped/$f")
printf '\x55' | dd of="$tmp/flipped/$f" bs=1 seek=$((size - 6)) conv=notrunc status=none
damaged flipped "$tmp/flipped/$f: corrupt"
cp -r "$tmp/run" "$tmp/truncated"
truncate -s 70 "$tmp/truncated/$f"
damaged truncated "$tmp/truncated/$f: lengths do not add up"
cp -r "$tmp/run" "$tmp/empty"
: >"$tmp/empty/$f"
damaged empty "$tmp/empty/$f: not a .tpr file"
cp -r "$tmp/run" "$tmp/both"
cp "$tmp/orig/outputs/normal_64/C.npy" "$tmp/both/outputs/normal_64/"
damaged both "$tmp/both/outputs/normal_64/C.npy and C.tpr both exist"
cp -r "$tmp/run" "$tmp/other"
cp "$tmp/run/outputs/tiny_1x1x1/C.tpr" "$tmp/other/$f"
damaged other "$tmp/other/$f: holds 1 elements of 2 bytes; the plan.s output C has 4096 of 2"
# the exact reference changes: here through the seed of the case's inputs
cp -r "$tmp/run" "$tmp/reseeded"
/usr/bin/python3 - "$tmp/reseeded/plan.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
for c in p["cases"]:
    if c["name"] == "normal_64":
        c["seed"] += 1
json.dump(p, open(sys.argv[1], "w"), indent=2)
EOF
damaged reseeded "$tmp/reseeded/$f: decodes to a .npy whose SHA-256 is [0-9a-f]*\.\.\., not the recorded [0-9a-f]*\.\.\.: the predicted patterns (the exact reference) differ from those it was encoded with; decode it with the tolproof that wrote it and re-encode it (recorded/migrations/recode.sh"
"$tp" unpack "$tmp/reseeded" >"$tmp/reseeded.unpack"
[ $? = 1 ] && [ -f "$tmp/reseeded/$f" ] && [ ! -f "$tmp/reseeded/outputs/normal_64/C.npy" ] &&
    grep -q "^not ok - $tmp/reseeded/normal_64: $tmp/reseeded/$f: decodes to a .npy whose SHA-256" "$tmp/reseeded.unpack"
ok $? "unpack refuses it too, the .tpr kept"
"$tp" pack "$tmp/nonexistent" >/dev/null
[ $? = 2 ]; ok $? "pack of a directory that is not a run: exit 2"

tap_end
