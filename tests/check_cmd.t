#!/usr/bin/env bash
# `tolproof check` on tensors written by NumPy (Debian's python3-numpy,
# through gen/npy_fixtures.py): for every kernel op one valid check (exit
# 0, or 1 for a deliberately wrong output), the same output re-encoded with
# format 2.0 and 3.0 headers, and the bad-input classes (truncated, trailing
# bytes, no shape in the header, '<f8', big-endian, Fortran order, a shape
# that contradicts the inputs), each refused with exit 2 and a message that
# names the file and what was expected. Then the checks specific to inputs,
# dims, index conversion, initial contents and model overrides.
set -u
cd "$(dirname "$0")/.."
root=$PWD
tp=$root/build/tolproof
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "1..0 # SKIP python3-numpy not installed (./configure --install-deps installs it)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }

/usr/bin/python3 gen/npy_fixtures.py "$tmp/fx"
ok $? "gen/npy_fixtures.py writes the fixtures with NumPy $(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"

# The lists come from the registry (build/gen/registry.json) and the
# fixtures: the dtypes tolproof reads, as NumPy descrs ("<f2, <f4, <i4 or
# <i8"), and the contracts with fixtures, which must cover every op.
reg=$root/build/gen/registry.json
descrs=$(/usr/bin/python3 -c 'import json, sys
d = [t["npy_descr"] for t in json.load(open(sys.argv[1]))["dtypes"]]
print(", ".join(d[:-1]) + " or " + d[-1])' "$reg")
ok $? "the registry lists the dtypes: $descrs"
ops=$(cd "$tmp/fx" && for d in */check.args; do echo "${d%/check.args}"; done)
uncovered=$(/usr/bin/python3 -c 'import json, os, sys
reg, gen = sys.argv[1], sys.argv[2]
have = {json.load(open(os.path.join(gen, c + ".plan.json")))["op"] for c in sys.argv[3:]}
print(" ".join(o["name"] for o in json.load(open(reg))["ops"] if o["name"] not in have))' "$reg" "$root/build/gen" $ops)
[ $? = 0 ] && [ -z "$uncovered" ]; ok $? "every op of the registry has a fixture contract (missing: ${uncovered:-none})"

# status NAME WANT PATTERN DIR ARGS...: runs check on contract DIR (or
# $CONTRACT) in the fixture folder DIR; the status must be WANT and, if
# PATTERN is not empty, the output (stdout and stderr) must contain it.
status() {
    local name=$1 want=$2 pattern=$3 dir=$4
    shift 4
    mkdir -p "$(dirname "$tmp/$name.log")"
    (cd "$tmp/fx/$dir" && "$tp" check --contract "${CONTRACT:-$dir}" "$@") >"$tmp/$name.log" 2>&1
    local rc=$?
    [ "$rc" = "$want" ]; ok $? "$name: exit status $want (got $rc)"
    if [ -n "$pattern" ]; then
        grep -qF -- "$pattern" "$tmp/$name.log"; ok $? "$name: says '$pattern'"
    fi
}

# with OUTPUT=FILE swapped into a contract's valid argument list
args_with() {
    local contract=$1 out=$2 file=$3
    local a
    while IFS= read -r a; do
        case "$a" in "$out="*) echo "$out=$file" ;; *) echo "$a" ;; esac
    done <"$tmp/fx/$contract/check.args"
}

for c in $ops; do
    d="$tmp/fx/$c"
    out=$(cat "$d/out")
    mapfile -t args <"$d/check.args"
    want=$(cat "$d/expect")
    status "$c/valid" "$want" "verdict: $([ "$want" = 0 ] && echo pass || echo fail)" "$c" "${args[@]}" --json "$tmp/$c.json"
    grep -q "\"verdict\": \"$([ "$want" = 0 ] && echo pass || echo fail)\"" "$tmp/$c.json" &&
        grep -q '"non_claims"' "$tmp/$c.json" && grep -q '"worst"' "$tmp/$c.json" && grep -q '"claim"' "$tmp/$c.json"
    ok $? "$c/valid: --json writes the verdict, worst elements, claim audit and Non-claims"
    for v in 2 3; do
        mapfile -t a < <(args_with "$c" "$out" ok_v$v.npy)
        status "$c/v$v.0" 0 "" "$c" "${a[@]}"
    done
    bad() {
        mapfile -t a < <(args_with "$c" "$out" "$1.npy")
        status "$c/$1" 2 "output $out: $1.npy: " "$c" "${a[@]}"
        grep -qF -- "$2" "$tmp/$c/$1.log"; ok $? "$c/$1: says '$2'"
    }
    bad bad_truncated "truncated"
    bad bad_trailing "trailing bytes"
    bad bad_noshape "has a key 'shapf' (expected only 'descr', 'fortran_order' and 'shape')"
    bad bad_f8 "dtype '<f8' is not supported: expected $descrs"
    bad bad_bigendian "is not supported: expected $descrs (little-endian; this file is big-endian)"
    [ -f "$d/bad_fortran.npy" ] && bad bad_fortran "fortran_order is True: only C order is supported"
    mapfile -t a < <(args_with "$c" "$out" bad_shape.npy)
    status "$c/bad_shape" 2 "but output $out (bad_shape.npy, shape [" "$c" "${a[@]}"
done

# gemm_fwd: the correct output passes; the truncating accumulation under the faithful model
status gemm_fwd/correct 0 "verdict: pass" gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy
status gemm_fwd/faithful 0 'accumulation="fp32_faithful"' gemm_fwd --input A=A.npy --input B=B.npy \
    --output C=C_trunc.npy --model accumulation=fp32_faithful --json "$tmp/faithful.json"
grep -q "NOT covered by the WP T3 proof" "$tmp/faithful.json"; ok $? "the faithful model's result says the WP proof does not cover it"
grep -q 'K\*2^-23\*(1+2^-7)' "$tmp/faithful.json"; ok $? "and states its bound"
grep -q '"accumulation": "fp32_faithful"' "$tmp/faithful.json"; ok $? "and records the override"
# the Evidence and Non-claims by id: said by the op for the bound it used, and by the runtime for the files
ids() { /usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(" ".join(s["id"] for s in r[sys.argv[2]]))' "$@"; }
ev=$(ids "$tmp/faithful.json" evidence) nc=$(ids "$tmp/faithful.json" non_claims)
[ "$ev" = "inputs.from_files outputs.from_files model.overridden op.reference gemm.exact.split_double gemm.bound.faithful_fp32 claim.audit" ]
ok $? "the faithful model's Evidence ids: files, the override, the faithful bound ($ev)"
[ "$nc" = "nonclaim.other_files nonclaim.model_conformance nonclaim.model_assumed gemm.nonclaim.order_hidden gemm.nonclaim.faithful_unproven gemm.nonclaim.faithful_alignment" ]
ok $? "and its Non-claims ids: no WP claim for the sequential orders ($nc)"
ev=$(ids "$tmp/gemm_fwd.json" evidence)
[ "$ev" = "inputs.from_files outputs.from_files op.reference gemm.exact.split_double gemm.bound.any_order_fp32 claim.audit" ]
ok $? "the contract's own model: the round-to-nearest bound, no override ($ev)"
status gemm_fwd/order_any 0 "order=\"any\"" gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy --model order=any
status gemm_fwd/bad_model_value 2 'model.accumulation is "fp64"; expected one of "fp32" "fp32_faithful"' gemm_fwd \
    --input A=A.npy --input B=B.npy --output C=C.npy --model accumulation=fp64
status gemm_fwd/bad_model_key 2 "the contract's [model] has no key acumulation" gemm_fwd \
    --input A=A.npy --input B=B.npy --output C=C.npy --model acumulation=fp32
status gemm_fwd/missing_input 2 "missing --input B=FILE.npy" gemm_fwd --input A=A.npy --output C=C.npy
status gemm_fwd/no_output 2 "no --output given" gemm_fwd --input A=A.npy --input B=B.npy
status gemm_fwd/input_is_output 2 "input C: C is an output of contract gemm_fwd, not an input" gemm_fwd \
    --input A=A.npy --input B=B.npy --input C=C.npy --output C=C.npy
status gemm_fwd/unknown_tensor 2 "contract gemm_fwd has no tensor D" gemm_fwd --input A=A.npy --input B=B.npy \
    --output D=C.npy
status gemm_fwd/twice 2 "input A is given twice" gemm_fwd --input A=A.npy --input A=A.npy --input B=B.npy --output C=C.npy
status gemm_fwd/input_truncated 2 "input A: bad_truncated.npy: truncated" gemm_fwd --input A=bad_truncated.npy \
    --input B=B.npy --output C=C.npy
status gemm_fwd/input_swapped 2 "shape mismatch: input A (B.npy, shape [64, 40]) has K = 40 but input B (A.npy, shape [48, 64]) has K = 48" \
    gemm_fwd --input A=B.npy --input B=A.npy --output C=C.npy
status gemm_fwd/input_f32 2 "input A: ../layernorm_fwd/mean.npy holds <f4 (f32); the contract's tensor A is <f2 (f16)" \
    gemm_fwd --input A=../layernorm_fwd/mean.npy --input B=B.npy --output C=C.npy
status gemm_fwd/rank 2 "shape mismatch: input B: ../gelu_fwd/x.npy has shape [1000] (1 dimensions); the contract's tensor B is [K, N]" \
    gemm_fwd --input A=A.npy --input B=../gelu_fwd/x.npy --output C=C.npy
status gemm_fwd/not_npy 2 "input A: check.args: not a .npy file" gemm_fwd --input A=check.args --input B=B.npy --output C=C.npy
status gemm_fwd/object 2 "dtype '|O' is not supported" gemm_fwd --input A=../object.npy --input B=B.npy --output C=C.npy
CONTRACT=no_such_contract status gemm_fwd/no_plan 2 "build the plans with \`ninja plans\`" gemm_fwd --input A=A.npy
status gemm_fwd/bad_arg 2 "expected NAME=FILE.npy" gemm_fwd --input A --input B=B.npy --output C=C.npy
(cd "$tmp/fx/gemm_fwd" && "$tp" check --contract "$root/build/gen/gemm_fwd.plan.json" --input A=A.npy --input B=B.npy \
    --output C=C.npy >/dev/null 2>&1)
ok $? "a plan JSON path works as --contract"
status gemm_fwd/refused_json 2 "" gemm_fwd --input A=A.npy --output C=C.npy --json "$tmp/refused.json"
grep -q '"verdict": "refused"' "$tmp/refused.json"; ok $? "--json records a refusal with its reason"

# gemm_bwd_a: the contract's requirements apply to the given tensors
status gemm_bwd_a/requirement 2 "M and K must be multiples of 16" gemm_bwd_a --input gC=gC33.npy --input B=B.npy \
    --output gA=gA33.npy

# indices: NumPy's int64 is narrowed when it fits, refused when not; the vocabulary applies
status embedding_fwd/i32 0 "verdict: pass" embedding_fwd --input idx=idx_i4.npy --input W=W.npy --output out=out.npy
status embedding_fwd/i64_narrowed 0 "" embedding_fwd --input idx=idx.npy --input W=W.npy --output out=out.npy \
    --json "$tmp/narrow.json"
grep -q "<i8 narrowed to i32" "$tmp/narrow.json"; ok $? "the narrowing is recorded in the result"
status embedding_fwd/i64_too_big 2 "input idx: idx_big.npy: element 4 is 8589934592, which does not fit the contract's i32" \
    embedding_fwd --input idx=idx_big.npy --input W=W.npy --output out=out.npy
status embedding_bwd/vocabulary 2 "input idx: idx_vocab.npy: idx[7] = 20 is outside the vocabulary: expected 0 <= idx < 20" \
    embedding_bwd --input idx=idx_vocab.npy --input gout=gout.npy --output gW=gW.npy
# out-of-range rows keep the output's pre-launch content: the contract's init, or --initial
status embedding_fwd/init_default 0 "verdict: pass" embedding_fwd --input idx=idx_oor.npy --input W=W.npy --output out=out_oor.npy
status embedding_fwd/initial_file 0 "verdict: pass" embedding_fwd --input idx=idx_oor.npy --input W=W.npy \
    --output out=out_oor0.npy --initial out=zeros.npy --json "$tmp/initial.json"
ev=$(ids "$tmp/initial.json" evidence)
[[ " $ev " == *" outputs.initial_from_file "* && " $ev " != *" outputs.initial_from_init "* ]]
ok $? "the Evidence says the pre-launch content came from the --initial file ($ev)"
status embedding_fwd/initial_wrong 1 "violation out[2, 0] = 0: exact 7" embedding_fwd --input idx=idx_oor.npy --input W=W.npy \
    --output out=out_oor0.npy
# a copy compares bit patterns: a NaN (payload 0x101) and a -0 copied as they are pass; a NaN whose payload
# changed and a -0 written as +0 fail, the patterns named
status embedding_fwd/nan_copied 0 "verdict: pass" embedding_fwd --input idx=idx.npy --input W=W_special.npy \
    --output out=out_special.npy --json "$tmp/bits.json"
ev=$(ids "$tmp/bits.json" evidence)
[[ " $ev " == *" outputs.compared_bits "* && " $ev " == *" embedding_fwd.bound.bit_pattern "* ]]
ok $? "the Evidence says the bit patterns were compared ($ev)"
status embedding_fwd/nan_payload 1 "violation out[0, 1] = nan (bits 0x7e00): exact nan, admitted the bit pattern 0x7f01 only" \
    embedding_fwd --input idx=idx.npy --input W=W_special.npy --output out=out_payload.npy
status embedding_fwd/minus_zero 1 "violation out[1, 2] = 0 (bits 0x0000): exact -0, admitted the bit pattern 0x8000 only" \
    embedding_fwd --input idx=idx.npy --input W=W_special.npy --output out=out_plus0.npy
# a correctly rounded softmax against the declared double rounding: a violation, diagnosed as more accurate
# than the model admits, with the model value that admits it; under that value it passes
status softmax_fwd/correctly_rounded 1 "more accurate than the declared model admits" softmax_fwd --input x=x_wide.npy \
    --output y=y_wide_cr.npy --json "$tmp/cr.json"
grep -qF -- "--model intermediate=fp32 would admit them" "$tmp/softmax_fwd/correctly_rounded.log"
ok $? "softmax_fwd/correctly_rounded: names --model intermediate=fp32"
grep -qE "violation y\[[0-9]+, [0-9]+\] = .* \(more accurate than the declared model admits\)" "$tmp/softmax_fwd/correctly_rounded.log"
ok $? "softmax_fwd/correctly_rounded: flags the violations it lists"
/usr/bin/python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))["outputs"]["y"]
assert 0 < o["more_accurate"] <= o["violations"], o["more_accurate"]
assert o["admitted_by"] == [{"key": "intermediate", "value": "fp32", "elements": o["more_accurate"]}], o["admitted_by"]
assert all(e.get("more_accurate") for e in o["first_violations"])' "$tmp/cr.json"
ok $? "softmax_fwd/correctly_rounded: --json counts more_accurate and says which model admits them (admitted_by)"
status softmax_fwd/correctly_rounded_fp32 0 "verdict: pass" softmax_fwd --input x=x_wide.npy --output y=y_wide_cr.npy \
    --model intermediate=fp32
# the pilot's fp32-accumulation model is violated by per-step fp16 accumulation
CONTRACT=embedding_bwd_pilot status embedding_bwd_pilot/violated 1 "verdict: fail" embedding_bwd --input idx=idx.npy \
    --input gout=gout.npy --output gW=gW.npy
# an output not given is skipped, and said so
status layernorm_fwd/skip 0 "output rstd: not given, not checked" layernorm_fwd --input x=x.npy --input gamma=gamma.npy \
    --input beta=beta.npy --output y=y.npy --output mean=mean.npy --json "$tmp/skip.json"
nc=$(ids "$tmp/skip.json" non_claims)
[ "${nc##* }" = nonclaim.output_not_checked ] && grep -q '"text": "output rstd was not given and is not checked"' "$tmp/skip.json"
ok $? "and its Non-claims say so (nonclaim.output_not_checked)"
# --dim binds a dim (embedding_bwd's V appears only in the output gW), and must agree with the tensors
status embedding_bwd/dim 0 "verdict: pass" embedding_bwd --input idx=idx.npy --input gout=gout.npy --output gW=gW.npy --dim V=20
status embedding_bwd/dim_conflict 2 "shape mismatch: --dim V=21 has V = 21 but output gW (gW.npy, shape [20, 8]) has V = 20" \
    embedding_bwd --input idx=idx.npy --input gout=gout.npy --output gW=gW.npy --dim V=21
status embedding_bwd/dim_syntax 2 "--dim V=x: expected NAME=N" embedding_bwd --input idx=idx.npy --input gout=gout.npy \
    --output gW=gW.npy --dim V=x
# HIP: gelu_fwd's contract documents a tanhf figure for [-5, 5] only, so an
# x whose tanhf argument leaves it is refused; softmax_fwd has no HIP figure
status gelu_fwd/hip 2 "gelu_fwd on HIP: x[20] = 6.06640625 gives the tanhf argument z in [12.8053284, 12.8053284], outside the test range [-5, 5]" \
    gelu_fwd --input x=x.npy --output y=y.npy --backend hip
status softmax_fwd/hip 2 "model.expf_ulp has no documented bound for backend \"hip\"" softmax_fwd --input x=x.npy \
    --output y=y.npy --backend hip
status gelu_fwd/nested_model 0 "verdict: pass" gelu_fwd --input x=x.npy --output y=y.npy --model tanhf_ulp.cuda=4

# issue 14's probe: hostile .npy files, numbers and paths; each refused
# with one line that says what is wrong (no crash, no 2 TiB allocation)
hx=$tmp/fx/gemm_fwd
printf '\x93NUMPY\x01\x00\x3e\x00{'"'"'descr'"'"':'"'"'<f2'"'"','"'"'fortran_order'"'"':False,'"'"'shape'"'"':(1099511627776,)}\0\0' >"$hx/huge.npy"
[ "$(stat -c %s "$hx/huge.npy")" = 74 ]; ok $? "the 74-byte .npy of the probe is 74 bytes"
status gemm_fwd/npy_2tib 2 "input A: huge.npy: truncated: shape (1099511627776,) of <f2 needs 2199023255552 data bytes, the file has 2" \
    gemm_fwd --input A=huge.npy --input B=B.npy --output C=C.npy
printf '\x93NUMPY\x01\x00\x09\x00{'"'"'descr'"'"':' >"$hx/short.npy"
status gemm_fwd/npy_19_bytes 2 "input A: short.npy: the header ends before the value of 'descr'" \
    gemm_fwd --input A=short.npy --input B=B.npy --output C=C.npy
/usr/bin/python3 - "$hx" <<'PY'
import sys
d = sys.argv[1]
def npy(name, dict_text, data):
    h = dict_text.encode()
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    open(f"{d}/{name}", "wb").write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data)
a = open(f"{d}/A.npy", "rb").read()
hl = int.from_bytes(a[8:10], "little")
shape = a[10:10 + hl].decode().split("'shape': ")[1].split(")")[0] + ")"
body = a[10 + hl:]
npy("nul.npy", "{'descr': '<f2',\0'fortran_order': False, 'shape': %s, }" % shape, body)
npy("twice.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 1), 'shape': %s, }" % shape, body)
PY
status gemm_fwd/npy_nul 2 "input A: nul.npy: the header holds a NUL byte at byte 16" \
    gemm_fwd --input A=nul.npy --input B=B.npy --output C=C.npy
status gemm_fwd/npy_shape_twice 2 "input A: twice.npy: the header gives 'shape' twice (ambiguous: NumPy would take the last one)" \
    gemm_fwd --input A=twice.npy --input B=B.npy --output C=C.npy
status gemm_fwd/npy_directory 2 "input A: $hx: is a directory, not a .npy file" gemm_fwd --input A="$hx" --input B=B.npy --output C=C.npy
# non-finite inputs: a model of finite inputs has no exact result for them,
# so they are bad input named by tensor and element (they were a "violation"
# against a NaN reference, claim "implied"); a gather copies them as they are
/usr/bin/python3 - "$tmp/fx" <<'PY'
import numpy as np, sys
d = sys.argv[1]
a = np.load(f"{d}/gemm_fwd/A.npy")
for name, r, c, v in [("A_inf", 3, 5, np.inf), ("A_nan", 0, 1, np.nan), ("A_minf", 1, 0, -np.inf)]:
    b = a.copy(); b[r, c] = v; np.save(f"{d}/gemm_fwd/{name}.npy", b)
x = np.load(f"{d}/softmax_fwd/x.npy"); x[0, 2] = np.inf; np.save(f"{d}/softmax_fwd/x_inf.npy", x)
idx, w = np.load(f"{d}/embedding_fwd/idx.npy"), np.load(f"{d}/embedding_fwd/W.npy")
out = np.load(f"{d}/embedding_fwd/out.npy")
row = int(idx.reshape(-1)[0])
w[row, 0] = -np.inf
out.reshape(-1, w.shape[1])[idx.reshape(-1) == row, 0] = -np.inf
np.save(f"{d}/embedding_fwd/W_inf.npy", w); np.save(f"{d}/embedding_fwd/out_inf.npy", out)
PY
ok $? "NumPy writes inputs holding inf, -inf and NaN"
status gemm_fwd/input_inf 2 "input A: A_inf.npy: A[3, 5] = inf: op gemm's model covers finite inputs only" \
    gemm_fwd --input A=A_inf.npy --input B=B.npy --output C=C.npy
status gemm_fwd/input_nan 2 "input A: A_nan.npy: A[0, 1] = nan: op gemm's model covers finite inputs only" \
    gemm_fwd --input A=A_nan.npy --input B=B.npy --output C=C.npy
status gemm_fwd/input_minf 2 "input A: A_minf.npy: A[1, 0] = -inf" gemm_fwd --input A=A_minf.npy --input B=B.npy --output C=C.npy
status softmax_fwd/input_inf 2 "input x: x_inf.npy: x[0, 2] = inf: op softmax_fwd's model covers finite inputs only" \
    softmax_fwd --input x=x_inf.npy --output y=y.npy
status embedding_fwd/weight_inf 0 "verdict: pass" embedding_fwd --input idx=idx.npy --input W=W_inf.npy --output out=out_inf.npy
status embedding_bwd/dim_huge 2 "--dim V=99999999999999999999: expected NAME=N with N a positive integer below 2^31" \
    embedding_bwd --input idx=idx.npy --input gout=gout.npy --output gW=gW.npy --dim V=99999999999999999999
status embedding_bwd/dim_2_31 2 "--dim V=2147483648: expected NAME=N with N a positive integer below 2^31" \
    embedding_bwd --input idx=idx.npy --input gout=gout.npy --output gW=gW.npy --dim V=2147483648
CONTRACT=/dev/stdin status gemm_fwd/contract_stdin_empty 2 "contract /dev/stdin: /dev/stdin: is empty" \
    gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy </dev/null
CONTRACT=/dev/stdin status gemm_fwd/contract_stdin 0 "verdict: pass" gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy \
    <"$root/build/gen/gemm_fwd.plan.json"
CONTRACT=$hx status gemm_fwd/contract_directory 2 "contract $hx: $hx: is a directory, not a file" \
    gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy
# a plan whose [model] has a key the op does not read (a contract from before
# gen/ refused them, or a hand-edited plan): refused, with or without --model
/usr/bin/python3 - "$root/build/gen/gemm_fwd.plan.json" "$hx/fmaa.plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["model"]["fmaa"] = "any"
json.dump(p, open(sys.argv[2], "w"))
PY
CONTRACT=$hx/fmaa.plan.json status gemm_fwd/plan_unknown_model_key 2 "model key fmaa is not one op gemm reads" \
    gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy
CONTRACT=$hx/fmaa.plan.json status gemm_fwd/plan_unknown_model_key_override 2 "model key fmaa is not one op gemm reads" \
    gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy --model fmaa=no
# shape expressions of a plan: checked arithmetic, a nesting limit
/usr/bin/python3 - "$root/build/gen/gemm_fwd.plan.json" "$hx" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for name, expr in [("intmin", "((0 - 4611686018427387904) - 4611686018427387904) / (0 - 1) > 0"),
                   ("wrap", "((65536 * 65536) * 65536) * 65536 <= 2147483647"),
                   ("parens", "(" * 100000 + "1" + ")" * 100000 + " > 0")]:
    p["requires"] = [{"expr": expr, "message": "probe"}]
    json.dump(p, open(f"{sys.argv[2]}/{name}.plan.json", "w"))
PY
for x in "intmin:integer overflow: -9223372036854775808 / -1 is beyond the 64-bit range" \
    "wrap:integer overflow: 281474976710656 * 65536 is beyond the 64-bit range" \
    "parens:expression nested too deeply (more than 64 levels"; do
    CONTRACT=$hx/${x%%:*}.plan.json status "gemm_fwd/plan_${x%%:*}" 2 "${x#*:}" gemm_fwd --input A=A.npy --input B=B.npy --output C=C.npy
done
echo "1..$n"
exit $((failed > 0))
