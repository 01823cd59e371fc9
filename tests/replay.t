#!/usr/bin/env bash
# Record/replay: a run recorded through the harness runtime (with the kernel
# emulated on the CPU) re-derives exactly under `tolproof replay`; planted
# errors in the kernel are caught; any edit to an output tensor or to a
# recorded verdict is caught; and every recorded GPU run in recorded/
# re-derives, while a tampered copy of it does not.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate py=/usr/bin/python3
. tests/tap.sh
plan=build/gen/gemm_fwd.plan.json
small=(--case normal_64 --case ragged_100x37x250 --case tiny_1x1x1 --case cancel_128x64x512 --case special_64x64x32)

"$emu" "$plan" "$tmp/good" "${small[@]}" >/dev/null 2>"$tmp/log"
ok $? "emulated sequential-fmaf GEMM passes every case of its contract"
"$tp" replay "$tmp/good" >"$tmp/replay.log"
ok $? "replay re-derives the emulated run"
grep -q "^not ok" "$tmp/replay.log"; ok $((1 - $?)) "replay reports no disagreement"

for m in fp16_accumulate drop_last_term; do
    "$emu" "$plan" "$tmp/$m" "${small[@]}" --mutant "$m" >/dev/null 2>&1
    [ $? = 1 ]; ok $? "planted error '$m' is a violation (harness exit 1)"
    "$tp" replay "$tmp/$m" >"$tmp/$m.replay"
    [ $? = 1 ] && ! grep -q "disagrees" "$tmp/$m.replay" && grep -q "every verdict re-derived" "$tmp/$m.replay" &&
        grep -q "^not ok - $tmp/$m/normal_64: expected pass, got violated$" "$tmp/$m.replay"
    ok $? "the violating run '$m' also re-derives; replay exits 1 naming the cases that expected a pass"
done

gelu=build/gen/gelu_bwd.plan.json
"$emu" "$gelu" "$tmp/gelu" --case normal_65536 >/dev/null 2>"$tmp/gelu.log"
ok $? "emulated GELU backward (host tanhf) passes its normal case"
"$emu" "$gelu" "$tmp/gelu_bad" --case normal_65536 --mutant wrong_constant >/dev/null 2>&1
[ $? = 1 ]; ok $? "GELU backward with c = 0.7978 is caught"

# flip one byte in the data part of an output tensor
cp -r "$tmp/good" "$tmp/flip"
f="$tmp/flip/outputs/normal_64/C.npy"
printf '\x01' | dd of="$f" bs=1 seek=200 conv=notrunc status=none
"$tp" replay "$tmp/flip" >"$tmp/flip.log"
[ $? = 1 ]; ok $? "a flipped byte in an output tensor fails the replay"
grep -q "normal_64.*disagrees" "$tmp/flip.log"; ok $? "the failure names the case"

# edit a recorded verdict
cp -r "$tmp/good" "$tmp/edit"
sed -i '0,/"violations": 0/s//"violations": 1/' "$tmp/edit/results.json"
"$tp" replay "$tmp/edit" >"$tmp/edit.log"
[ $? = 1 ]; ok $? "an edited count in results.json fails the replay"
grep -q "violations" "$tmp/edit.log"; ok $? "the failure names the field that disagrees"

# the Evidence and Non-claims compare statement by statement, named by index and id
edit() { # edit RUN PYTHON: applies PYTHON to r, the loaded results.json of RUN
    /usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[2])
open(sys.argv[1], "w").write(json.dumps(r, sort_keys=True, indent=1))' "$1/results.json" "$2"
}
cp -r "$tmp/good" "$tmp/text"
edit "$tmp/text" 'r["cases"][0]["evidence"][3]["text"] = "exact sums by some other method"'
"$tp" replay "$tmp/text" >"$tmp/text.log"
[ $? = 1 ]; ok $? "an edited statement text fails the replay"
grep -qF ".evidence[3].text (id gemm.exact.split_double)" "$tmp/text.log"; ok $? "the failure names the statement by index and id"
cp -r "$tmp/good" "$tmp/dropped"
edit "$tmp/dropped" 'r["cases"][0]["non_claims"].pop()'
"$tp" replay "$tmp/dropped" >"$tmp/dropped.log"
[ $? = 1 ] && grep -qF "(id gemm.nonclaim.proof_sequential_orders: re-derived, not recorded)" "$tmp/dropped.log"
ok $? "a dropped Non-claim fails the replay, named by its id"
# results from before the ids (plain strings) are named as such, and --rewrite-statements re-generates them
cp -r "$tmp/good" "$tmp/old"
edit "$tmp/old" '
for c in r["cases"]:
    for k in ("evidence", "non_claims"):
        c[k] = [s["text"] for s in c[k]]'
"$tp" replay "$tmp/old" >"$tmp/old.log"
[ $? = 1 ] && grep -qF "not an {id, text} statement" "$tmp/old.log" && grep -q "recorded/MIGRATIONS.md" "$tmp/old.log"
ok $? "a results.json with plain-string statements fails the replay and points at recorded/MIGRATIONS.md"
cp -r "$tmp/old" "$tmp/old_verdict"
"$tp" replay --rewrite-statements "$tmp/old" >"$tmp/rewrite.log"
ok $? "replay --rewrite-statements re-generates them"
cmp -s "$tmp/good/results.json" "$tmp/old/results.json"; ok $? "byte for byte as the harness wrote them"
"$tp" replay --rewrite-statements "$tmp/old" >"$tmp/rewrite2.log" && ! grep -q "re-generated" "$tmp/rewrite2.log" &&
    cmp -s "$tmp/good/results.json" "$tmp/old/results.json"
ok $? "a second --rewrite-statements changes nothing"
sed -i '0,/"violations": 0/s//"violations": 1/' "$tmp/old_verdict/results.json"
cp "$tmp/old_verdict/results.json" "$tmp/old_verdict.json"
"$tp" replay --rewrite-statements "$tmp/old_verdict" >"$tmp/rewrite3.log"
[ $? = 1 ] && cmp -s "$tmp/old_verdict.json" "$tmp/old_verdict/results.json" && grep -q "not rewritten" "$tmp/rewrite3.log"
ok $? "--rewrite-statements leaves a run alone where anything else disagrees"
# --rewrite-only KEY,...: the same for the keys named (the migrations 0002, 0003), at any depth, added or dropped
cp -r "$tmp/good" "$tmp/only"
edit "$tmp/only" '
o = r["cases"][0]["outputs"]["C"]
o["max_ulp_err"] = 12345.0
o["claim"]["loose_elements"] += 1
o["more_accurate"] = 3'
cp "$tmp/only/results.json" "$tmp/only.json"
"$tp" replay --rewrite-only max_ulp_err,more_accurate "$tmp/only" >"$tmp/only.log"
[ $? = 1 ] && cmp -s "$tmp/only.json" "$tmp/only/results.json" && grep -qF "recomputation at .outputs.C.claim.loose_elements" "$tmp/only.log"
ok $? "--rewrite-only leaves a run alone where a key it does not name disagrees (claim.loose_elements)"
"$tp" replay --rewrite-only max_ulp_err,loose_elements,more_accurate "$tmp/only" >"$tmp/only2.log"
ok $? "--rewrite-only re-generates the keys it names, nested ones included, and drops a recorded key not re-derived"
cmp -s "$tmp/good/results.json" "$tmp/only/results.json"; ok $? "byte for byte as the harness wrote them"

# truncated output file
cp -r "$tmp/good" "$tmp/trunc"
truncate -s 100 "$tmp/trunc/outputs/tiny_1x1x1/C.npy"
"$tp" replay "$tmp/trunc" >"$tmp/trunc.log"
[ $? != 0 ]; ok $? "a truncated output tensor fails the replay"

# issue 14's probe: a planted 74-byte .npy that declares 2^40 elements
# crashed replay (and audit) allocating 2 TiB; a directory named
# results.json or plan.json was "'[' or '{' expected near end of file"
cp -r "$tmp/good" "$tmp/huge"
printf '\x93NUMPY\x01\x00\x3e\x00{'"'"'descr'"'"':'"'"'<f2'"'"','"'"'fortran_order'"'"':False,'"'"'shape'"'"':(1099511627776,)}\0\0' \
    >"$tmp/huge/outputs/tiny_1x1x1/C.npy"
"$tp" replay --case tiny_1x1x1 "$tmp/huge" >"$tmp/huge.log"
[ $? = 1 ] && grep -q "C.npy: truncated: shape (1099511627776,) of <f2 needs 2199023255552 data bytes, the file has 2" "$tmp/huge.log"
ok $? "a 74-byte output declaring 2^40 elements is refused by its size, not allocated"
for f in results.json plan.json; do
    cp -r "$tmp/good" "$tmp/dir_$f"
    rm "$tmp/dir_$f/$f" && mkdir "$tmp/dir_$f/$f"
    "$tp" replay "$tmp/dir_$f" >"$tmp/dir_$f.log"
    [ $? = 2 ] && grep -q "$f: is a directory, not a file" "$tmp/dir_$f.log"
    ok $? "replay: a directory named $f says so"
done
"$tp" summary "$tmp/dir_results.json" >/dev/null 2>"$tmp/sum_dir.log"
[ $? = 2 ] && grep -q "results.json: is a directory, not a file" "$tmp/sum_dir.log"
ok $? "summary: a directory named results.json says so"

# issue 14's probe: malformed plans crashed replay and audit (NULL strings,
# 12 segfaults); main's typed plan reader (core/tp_plan_json.c) refuses each
# naming the field
while IFS='|' read -r label edit want; do
    cp -r "$tmp/good" "$tmp/badplan"
    /usr/bin/python3 - "$tmp/badplan/plan.json" "$edit" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(p, open(sys.argv[1], "w"))
PY
    "$tp" replay "$tmp/badplan" >"$tmp/badplan.log" 2>&1
    rc=$?
    [ $rc = 1 ] || [ $rc = 2 ] && grep -qF "$want" "$tmp/badplan.log"
    ok $? "replay: a plan with $label is refused ($want)"
    rm -rf "$tmp/badplan"
done <<'EOF2'
a tensor without dtype|del p["tensors"][0]["dtype"]|plan: tensors[0].dtype is missing (expected a string
a tensor without role|del p["tensors"][2]["role"]|plan: tensors[2].role is missing (expected a string
a case without name|del p["cases"][0]["name"]|plan: cases[0].name is missing (expected a string
an integer case name|p["cases"][0]["name"] = 3|plan: cases[0].name is an integer; expected a string
op 3|p["op"] = 3|plan: op is an integer; expected a string
a requirement without expr|del p["requires"][0]["expr"]|plan: requires[0].expr is missing (expected a string
an integer shape entry|p["tensors"][0]["shape"][0] = 64|plan: tensors[0].shape[0] is an integer; expected a string
null tensors|p["tensors"] = None|plan: tensors is null; expected an array of tensor objects
an unknown dtype|p["tensors"][1]["dtype"] = "f8"|plan: tensors[1].dtype is "f8"; expected f16, f32, i32, i64 or bf16
nine dims|p["dims"] = ["d%d" % i for i in range(9)]|plan: dims has 9 entries; expected 1 to 8
an unknown model key|p["model"]["fmaa"] = "no"|model key fmaa is not one op gemm reads
a 5000-deep mirror fill|[c for c in p["cases"] if c["name"] == "tiny_1x1x1"][0]["fill"]["A"] = "mirror(0, " * 5000 + "normal(0, 1)" + ")" * 5000|fills nested more than 8 deep
a 100000-deep shape expression|p["tensors"][2]["shape"][0] = "(" * 100000 + "M" + ")" * 100000|expression nested too deeply
a null model entry|p["model"]["accumulation"] = None|plan: model.accumulation is null
EOF2

# the recorded GPU runs
shopt -s nullglob
runs=()
for r in recorded/*/*/; do
    # the verdict corpus (recorded/variants/) is replayed by tests/verdicts.t
    [[ $r == recorded/variants/* ]] || runs+=("$r")
done
if [ ${#runs[@]} -eq 0 ]; then
    n=$((n + 1)); echo "ok $n # SKIP no recorded GPU run in recorded/"
else
    # `ninja test` runs `ninja replay` first (the same command, below): its
    # summary says it, when no run, plan or tolproof is newer than it;
    # otherwise (this test run alone, say) the replay runs here.
    sum=build/replay/summary.json
    if [ -f "$sum" ] && [ -z "$(find "${runs[@]}" build/gen "$tp" -newer "$sum" -print -quit)" ] &&
        $py -c 'import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(not (s.get("exit") == 0 and s.get("status") == "pass" and
              sorted(r.rstrip("/") for r in s["recorded"]) == sorted(r.rstrip("/") for r in sys.argv[2:])))' "$sum" "${runs[@]}"
    then
        ok 0 "every recorded GPU run (${#runs[@]}) re-derives, each case with its expected outcome ($sum, up to date)"
    else
        # recorded before plans carried expectations: the current contracts' plans say them
        "$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$tmp/rec.log"
        ok $? "every recorded GPU run (${#runs[@]}) re-derives, each case with its expected outcome"
    fi
    for r in "${runs[@]}"; do
        cp -r "$r" "$tmp/rec_copy"
        # outputs are recorded as .tpr (recorded/MIGRATIONS.md 0004): edit the .npy,
        # then pack it again, so that the file decodes, to other values; only
        # that case is unpacked and packed (each decoding recomputes its
        # case's exact reference: the whole run would take minutes)
        out=$(find "$tmp/rec_copy/outputs" \( -name '*.tpr' -o -name '*.npy' \) ! -name 'input_*' | sort | head -n 1)
        case_name=$(basename "$(dirname "$out")")
        "$tp" unpack --case "$case_name" "$tmp/rec_copy" >/dev/null
        npy=${out%.*}.npy
        size=$(stat -c %s "$npy")
        # flip the last byte of the first output: a real value, not padding
        last=$(od -An -tu1 -j $((size - 1)) -N1 "$npy" | tr -d ' ')
        printf "$(printf '\\%03o' $(((last + 1) % 256)))" | dd of="$npy" bs=1 seek=$((size - 1)) conv=notrunc status=none
        "$tp" pack --case "$case_name" "$tmp/rec_copy" >/dev/null
        "$tp" replay --expect-from build/gen --case "$case_name" "$tmp/rec_copy" >/dev/null
        [ $? = 1 ]; ok $? "a tampered copy of $r (case $case_name) fails the replay"
        rm -rf "$tmp/rec_copy"
    done
fi
tap_end
