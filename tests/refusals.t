#!/usr/bin/env bash
# Bad input is refused before any launch, through the runtime every
# generated harness uses (the kernel emulated on the CPU): a zero dim, an
# output format the op does not support, a tile-multiple violation, an
# index outside the vocabulary, and --input files that are an output,
# truncated, or of the wrong element count, shape, dtype or index range.
# Each refusal exits 2 (0 when the contract's case expects it: expect =
# "refused"), names the tensor (or dim) and what was expected, is recorded
# in results.json as refused with that reason, and leaves nothing under
# outputs/ for the case. A correct --input file gives the same
# verdict as the seeded case, and both replay.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate
. tests/tap.sh

# refused NAME CASE BY PATTERN PLAN ARGS...: runs the emulator on PLAN into
# $tmp/NAME and checks the exit status (2, or $want: 0 for a refusal the
# case expects), the message on stderr, the record in results.json and that
# outputs/CASE does not exist.
refused() {
    local name=$1 case=$2 by=$3 pattern=$4 plan=$5 want=${want:-2}
    shift 5
    local out="$tmp/$name"
    "$emu" "$plan" "$out" --case "$case" "$@" >/dev/null 2>"$out.log"
    local rc=$?
    [ "$rc" = "$want" ]; ok $? "$name: refused with exit status $want (got $rc)"
    grep -qF -- "$pattern" "$out.log"; ok $? "$name: the message says '$pattern'"
    local res="$out/results.json"
    [ "$(grep -c '"verdict":' "$res")" = 1 ] && grep -qF "\"case\": \"$case\"" "$res" &&
        grep -qF '"verdict": "refused"' "$res" && grep -qF "\"by\": \"$by\"" "$res" &&
        grep -F '"reason":' "$res" | grep -qF -- "$pattern"
    ok $? "$name: results.json records case $case as refused by $by with that reason"
    [ ! -e "$out/outputs/$case" ]; ok $? "$name: nothing written under outputs/$case"
}

gemm=build/gen/gemm_fwd.plan.json
emb=build/gen/embedding_bwd.plan.json

# a zero dim, in a copy of the plan (case tiny_1x1x1 has M = 1)
sed '0,/"M": 1,/s//"M": 0,/' "$gemm" >"$tmp/gemm_zero.plan.json"
grep -q '"M": 0,' "$tmp/gemm_zero.plan.json"; ok $? "the copied plan has a case with M = 0"
refused zero_dim tiny_1x1x1 plan "case tiny_1x1x1: dim M is 0 (expected a positive integer)" "$tmp/gemm_zero.plan.json"

# an output in a format its op does not declare (gemm writes binary16 only):
# C as bfloat16 in a copy of the plan
/usr/bin/python3 - "$gemm" "$tmp/gemm_bf16.plan.json" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1]))
for t in plan["tensors"]:
    if t["name"] == "C":
        t["dtype"] = "bf16"
json.dump(plan, open(sys.argv[2], "w"), indent=2)
EOF
refused output_format normal_64 plan \
    "op gemm cannot check output C in bfloat16 (bf16): its outputs are binary16 (f16) only" "$tmp/gemm_bf16.plan.json"
"$tp" replay "$tmp/output_format" >"$tmp/output_format.replay" 2>&1
[ $? = 1 ] && grep -q "^ok - $tmp/output_format/normal_64: recorded refused .*, refusal re-derived" "$tmp/output_format.replay" &&
    grep -q "^not ok - $tmp/output_format/normal_64: expected pass, got refused" "$tmp/output_format.replay"
ok $? "output_format: replay re-derives the refusal, and names it as unexpected (the case expects a pass)"

# a tile-multiple violation and an index outside the vocabulary, from the contracts
# (the contracts' cases expect these refusals: exit 0)
want=0 refused tile_multiple refused_m100 plan "M and K must be multiples of 16" build/gen/gemm_bwd_a.plan.json
want=0 refused vocabulary refused_out_of_range plan "is outside the vocabulary: expected 0 <= idx < 10" "$emb"

# HIP: the GELU contracts' tanhf figure ([model.tanhf_ulp.hip]) covers
# tanhf arguments in [-5, 5] only: a case with one outside is refused
# before the launch (by plan), naming the element, its argument's
# enclosure and the range; a case inside it is checked on the figure
refused hip_range large_x plan \
    "gelu_fwd on HIP: x[0] = -232.875 gives the tanhf argument z in [-450755.406, -450755.406], outside the test range [-5, 5] of the documented HIP tanhf figure (model.tanhf_ulp.hip)" \
    build/gen/gelu_fwd.plan.json --backend hip
"$emu" build/gen/gelu_bwd.plan.json "$tmp/hip_bwd" --case all_f16 --backend hip >/dev/null 2>"$tmp/hip_bwd.log"
[ $? = 2 ] && grep -qF "gelu_bwd on HIP: x[17308] = 3.8046875 gives the tanhf argument z in [5.00064564, 5.00064611], outside the test range [-5, 5]" "$tmp/hip_bwd.log"
ok $? "hip_range: gelu_bwd all_f16 is refused at x = 3.8046875, whose z (fused or not) ends just above 5"
"$emu" build/gen/gelu_fwd.plan.json "$tmp/hip_in" --case near_zero --case ragged_1000 --backend hip >/dev/null 2>&1
[ $? = 0 ] && ! grep -qE '"verdict": "(refused|violated|error)"' "$tmp/hip_in/results.json" &&
    grep -qF '"id": "gelu_fwd.bound.hip_figure"' "$tmp/hip_in/results.json" &&
    grep -qF '"id": "gelu_fwd.nonclaim.hip_figure_sampled"' "$tmp/hip_in/results.json" &&
    grep -qF '"id": "gelu_fwd.nonclaim.hip_host_library"' "$tmp/hip_in/results.json"
ok $? "hip_range: gelu_fwd near_zero and ragged_1000 (every z in [-5, 5]) pass on HIP, with the figure's Evidence and Non-claims"
"$tp" replay "$tmp/hip_in" >/dev/null; ok $? "and replay"

# inputs to feed back: every generated input of a few cases
"$emu" "$gemm" "$tmp/seeded" --case normal_64 --dump-inputs >/dev/null 2>&1
ok $? "gemm_fwd normal_64 passes with --dump-inputs"
[ -f "$tmp/seeded/outputs/normal_64/input_A.npy" ] && [ -f "$tmp/seeded/outputs/normal_64/input_B.npy" ]
ok $? "--dump-inputs writes outputs/normal_64/input_A.npy and input_B.npy"
"$emu" "$gemm" "$tmp/dump" --case ragged_100x37x250 --case special_64x64x32 --dump-inputs >/dev/null 2>&1
"$emu" "$emb" "$tmp/edump" --case uniform_4096x256 --dump-inputs >/dev/null 2>&1
ok $? "embedding_bwd uniform_4096x256 passes with --dump-inputs"
a64="$tmp/seeded/outputs/normal_64/input_A.npy"
idx="$tmp/edump/outputs/uniform_4096x256/input_idx.npy"

refused input_count normal_64 input \
    "input A: $tmp/dump/outputs/ragged_100x37x250/input_A.npy holds 25000 elements; the case's shape [64, 64] needs 4096" \
    "$gemm" --input A="$tmp/dump/outputs/ragged_100x37x250/input_A.npy"
refused input_shape special_64x64x32 input \
    "input A: $tmp/dump/outputs/special_64x64x32/input_B.npy has shape [32, 64]; the case's shape is [64, 32]" \
    "$gemm" --input A="$tmp/dump/outputs/special_64x64x32/input_B.npy"
refused input_dtype uniform_4096x256 input "input gout: $idx holds i32; the contract's tensor gout is f16" \
    "$emb" --input gout="$idx"
head -c 1000 "$a64" >"$tmp/trunc.npy"
refused input_truncated normal_64 input \
    "input A: $tmp/trunc.npy: truncated: shape (64, 64) of <f2 needs 8192 data bytes, the file has 872 (expected 4096 f16 elements, shape [64, 64])" \
    "$gemm" --input A="$tmp/trunc.npy"
# an infinite element (binary16 0x7c00 at A[0, 2]): refused before the launch
/usr/bin/python3 - "$a64" "$tmp/inf.npy" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
data = 10 + int.from_bytes(b[8:10], "little")
b[data + 4:data + 6] = b"\x00\x7c"
open(sys.argv[2], "wb").write(b)
EOF
refused input_infinite normal_64 input "input A[0, 2] = inf: op gemm's model covers finite inputs only" \
    "$gemm" --input A="$tmp/inf.npy"
printf 'not a tensor\n' >"$tmp/text.npy"
refused input_not_npy normal_64 input "input A: $tmp/text.npy: not a .npy file" "$gemm" --input A="$tmp/text.npy"
# indices drawn from [0, 1024) fed to a case whose vocabulary is [0, 1000)
refused input_vocabulary zipf_4096x256 input "is outside the vocabulary: expected 0 <= idx < 1000" \
    "$emb" --input idx="$idx"

# correct files: the same verdict, recorded with the files' checksums, and replayable
"$emu" "$gemm" "$tmp/fed" --case normal_64 --input A="$a64" --input B="$tmp/seeded/outputs/normal_64/input_B.npy" \
    >/dev/null 2>&1
ok $? "gemm_fwd normal_64 passes with both inputs from files"
cmp -s "$tmp/seeded/outputs/normal_64/C.npy" "$tmp/fed/outputs/normal_64/C.npy"
ok $? "the output is the same bits as from the seeded inputs"
# results.json without inputs_from and the statements about where the inputs came from
strip() {
    /usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cases"]:
    c.pop("inputs_from", None)
    c["evidence"] = [s for s in c.get("evidence", []) if not s["id"].startswith("inputs.")]
print(json.dumps(r, sort_keys=True, indent=1))' "$1/results.json"
}
diff <(strip "$tmp/seeded") <(strip "$tmp/fed") >/dev/null
ok $? "results.json is the same apart from inputs_from and where the Evidence says the inputs came from"
sha=$(sha256sum "$a64" | cut -d' ' -f1)
grep -q "\"A\": \"$sha\"" "$tmp/fed/results.json"; ok $? "results.json records the SHA-256 of the A file"
grep -q "\"id\": \"inputs.regenerated\"" "$tmp/seeded/results.json" &&
    ! grep -q "\"id\": \"inputs.regenerated\"" "$tmp/fed/results.json" &&
    grep -q "inputs read from .npy files: A = outputs/normal_64/input_A.npy (sha256 ${sha:0:16}...)" "$tmp/fed/results.json"
ok $? "the Evidence says the inputs came from the kept copies, not from the seed"
cmp -s "$a64" "$tmp/fed/outputs/normal_64/input_A.npy"; ok $? "the A file is copied to outputs/normal_64/input_A.npy"
"$tp" replay "$tmp/seeded" "$tmp/fed" >"$tmp/replay.log"
ok $? "both runs replay"
grep -q "fed/normal_64: re-derived" "$tmp/replay.log"; ok $? "the run from files re-derives its case"

"$emu" "$emb" "$tmp/efed" --case uniform_4096x256 --input idx="$idx" >/dev/null 2>&1
ok $? "embedding_bwd uniform_4096x256 passes with its indices from a file"
"$tp" replay "$tmp/efed" >/dev/null; ok $? "and replays"
grep -q '"id": "inputs.others_regenerated"' "$tmp/efed/results.json"
ok $? "its Evidence says the other inputs came from the seed"

# replay builds the case from the copied file: a different copy is a disagreement
cp -r "$tmp/fed" "$tmp/fed_edit"
cp "$tmp/seeded/outputs/normal_64/input_B.npy" "$tmp/fed_edit/outputs/normal_64/input_A.npy"
"$tp" replay "$tmp/fed_edit" >"$tmp/edit.log"
[ $? = 1 ]; ok $? "a replaced input file fails the replay"
grep -q "normal_64.*inputs_from" "$tmp/edit.log"; ok $? "the failure names inputs_from"
cp -r "$tmp/fed" "$tmp/fed_gone"
rm "$tmp/fed_gone/outputs/normal_64/input_A.npy"
"$tp" replay "$tmp/fed_gone" >/dev/null
[ $? = 1 ]; ok $? "a missing input file fails the replay"

# argument errors are refused before any case
"$emu" "$gemm" "$tmp/bad_arg" --case normal_64 --input A >/dev/null 2>"$tmp/bad_arg.log"
[ $? = 2 ] && grep -q "expected NAME=FILE.npy" "$tmp/bad_arg.log"; ok $? "--input without NAME=FILE is refused"
"$emu" "$gemm" "$tmp/twice" --case normal_64 --input A="$a64" --input A="$a64" >/dev/null 2>"$tmp/twice.log"
[ $? = 2 ] && grep -q "given twice" "$tmp/twice.log"; ok $? "--input naming a tensor twice is refused"
# issue 14: --input was checked only when a case was built, so a harness
# on a machine without a GPU (exit 3) let a misspelt name pass; now it is
# an argument error on any machine, and nothing is created for --out
argerr() { # NAME MESSAGE ARGS...: exit 2, MESSAGE on stderr, no run directory
    local name=$1 msg=$2
    shift 2
    "$emu" "$gemm" "$tmp/$name" --case normal_64 "$@" >/dev/null 2>"$tmp/$name.log"
    [ $? = 2 ] && grep -qF -- "$msg" "$tmp/$name.log" && [ ! -e "$tmp/$name" ]
    ok $? "$name: refused before any device or case, nothing written ($msg)"
}
argerr input_unknown "--input X=$a64: contract gemm_fwd has no tensor X (its inputs: A, B)" --input X="$a64"
argerr input_output "--input C=$a64: C is an output of contract gemm_fwd, not an input (its inputs: A, B)" --input C="$a64"
argerr input_missing "--input A=$tmp/none.npy: cannot open: No such file or directory" --input A="$tmp/none.npy"
argerr input_directory "--input A=$tmp: is a directory, not a .npy file" --input A="$tmp"
argerr input_unknown_no_gpu "contract gemm_fwd has no tensor X" --input X="$a64" --mutant no_device
# no GPU: exit 3, and the --out directories it made are gone again
"$emu" "$gemm" "$tmp/nogpu/run" --case normal_64 --input A="$a64" --mutant no_device >/dev/null 2>"$tmp/nogpu.log"
[ $? = 3 ] && grep -q "^no GPU: " "$tmp/nogpu.log" && [ ! -e "$tmp/nogpu" ]
ok $? "no GPU: exit 3 with valid arguments, and no empty --out directory left behind"
mkdir -p "$tmp/nogpu_kept" && touch "$tmp/nogpu_kept/thesis.tex"
"$emu" "$gemm" "$tmp/nogpu_kept" --case normal_64 --mutant no_device >/dev/null 2>&1
[ $? = 3 ] && [ -f "$tmp/nogpu_kept/thesis.tex" ]; ok $? "no GPU: an --out directory that existed is left as it was"
tap_end
