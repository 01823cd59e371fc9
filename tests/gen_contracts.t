#!/bin/bash
# TAP: gen/tpgen.py contract validation. Every error class gives exactly one
# line `FILE:LINE: what; expected what` with the right line, and exit 2;
# valid contracts give deterministic plans.
cd "$(dirname "$0")/.." || exit 1
PY=/usr/bin/python3
GEN="$PY gen/tpgen.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
    shift
    for l in "$@"; do echo "#   $l"; done
}

# Base contract: the line numbers below are what the cases expect.
base() {
    cat <<'EOF'
contract = "gemm_fwd"
summary = "test"
op = "gemm"
dims = ["M", "N", "K"]

[kernel]
source = "kernels/gemm_fwd.hip"
entry = "gemm_fwd"
block = ["16", "16"]
grid = ["ceil_div(N, 16)", "ceil_div(M, 16)"]
shared_bytes = "0"
args = ["A", "B", "C", "M", "N", "K"]

[[tensor]]
name = "A"
dtype = "f16"
shape = ["M", "K"]
role = "input"

[[tensor]]
name = "B"
dtype = "f16"
shape = ["K", "N"]
role = "input"

[[tensor]]
name = "C"
dtype = "f16"
shape = ["M", "N"]
role = "output"

[model]
accumulation = "fp32"

[claim]
atol = 1e-2
source = "test"

[[require]]
expr = "K <= 8192 and M >= 1"
message = "m"

[[case]]
name = "a"
seed = 1
dims = { M = 4, N = 4, K = 4 }
fill = { A = "normal(0, 1)", B = "normal(0, 1)" }
note = "n"

[[case]]
name = "b"
seed = 2
dims = { M = 8, N = 8, K = 8 }
fill = { A = "normal(0, 1)", B = "mirror(1, normal(0, 1))" }
EOF
}

# bad DESC LINE REGEX SED-SCRIPT [STEM]: the edited base contract must be
# refused with one line at LINE whose message matches REGEX.
case_no=0
bad() {
    local desc=$1 line=$2 re=$3 script=$4 stem=${5:-gemm_fwd}
    case_no=$((case_no + 1))
    mkdir -p "$tmp/$case_no"
    local f="$tmp/$case_no/$stem.toml"
    base | sed -e "$script" >"$f"
    check_refusal "$desc" "$f" "$line" "$re"
}
check_refusal() {
    local desc=$1 f=$2 line=$3 re=$4
    local err rc nlines
    err=$($GEN check "$f" 2>&1 >/dev/null)
    rc=$?
    nlines=$(printf '%s\n' "$err" | wc -l)
    if [ "$rc" -ne 2 ]; then
        not_ok "$desc" "exit status $rc, expected 2" "stderr: $err"
    elif [ "$nlines" -ne 1 ]; then
        not_ok "$desc" "expected one line, got $nlines:" "$err"
    elif ! printf '%s' "$err" | grep -Eq "^$f:$line: .*($re).*; expected .+"; then
        not_ok "$desc" "expected $f:$line: ...$re...; expected ..." "got: $err"
    else
        ok "$desc (line $line)"
    fi
}

# ------------------------------------------------------------ valid ones
mkdir -p "$tmp/ok"
base >"$tmp/ok/gemm_fwd.toml"
if $GEN check "$tmp/ok/gemm_fwd.toml" 2>"$tmp/err"; then ok "base contract is valid"; else not_ok "base contract is valid" "$(cat "$tmp/err")"; fi
for c in contracts/*.toml; do
    if $GEN check "$c" 2>"$tmp/err"; then ok "$c is valid"; else not_ok "$c is valid" "$(cat "$tmp/err")"; fi
done
for c in contracts/*.toml; do
    name=$(basename "$c" .toml)
    $GEN plan "$c" -o "$tmp/p1/$name.plan.json" && $GEN plan "$c" -o "$tmp/p2/$name.plan.json"
    if cmp -s "$tmp/p1/$name.plan.json" "$tmp/p2/$name.plan.json" && grep -q '"tolproof_plan": 1' "$tmp/p1/$name.plan.json"; then
        ok "plan of $c is deterministic"
    else
        not_ok "plan of $c is deterministic"
    fi
done
$GEN plan "$tmp/ok/gemm_fwd.toml" -o "$tmp/ok/plan.json"
if grep -q '"expr": "(K <= 8192) && (M >= 1)"' "$tmp/ok/plan.json" &&
    grep -q '"tp_ceil_div(N, 16)"' "$tmp/ok/plan.json"; then
    ok "plan renders requires with && and launch expressions as C"
else
    not_ok "plan renders requires with && and launch expressions as C" "$(grep -A2 '"expr"\|grid' "$tmp/ok/plan.json")"
fi
mkdir -p "$tmp/ok/chain"
base | sed -e '40s/.*/expr = "1 <= M <= 8192 and K % 16 == 0"/' >"$tmp/ok/chain/gemm_fwd.toml"
if $GEN plan "$tmp/ok/chain/gemm_fwd.toml" -o "$tmp/ok/chain.json" &&
    grep -q '"expr": "((1 <= M) \&\& (M <= 8192)) \&\& ((K % 16) == 0)"' "$tmp/ok/chain.json"; then
    ok "a chained comparison renders as C's && of its pairs"
else
    not_ok "a chained comparison renders as C's && of its pairs" "$(grep '"expr"' "$tmp/ok/chain.json" 2>&1)"
fi
for b in cuda hip; do
    if $GEN harness "$tmp/ok/gemm_fwd.toml" --backend $b -o "$tmp/ok/$b.hip" &&
        grep -q 'hipLaunchKernelGGL(gemm_fwd' "$tmp/ok/$b.hip" && grep -q "\"$b\"" "$tmp/ok/$b.hip"; then
        ok "harness renders for $b"
    else
        not_ok "harness renders for $b"
    fi
done
if $GEN ninja contracts/*.toml -o "$tmp/a.ninja" && $GEN ninja $(ls contracts/*.toml | sort -r) -o "$tmp/b.ninja" &&
    cmp -s "$tmp/a.ninja" "$tmp/b.ninja" && grep -q '^build build/harnesses/cuda/gemm_fwd: tp_nvcc' "$tmp/a.ninja"; then
    ok "ninja output is deterministic and has the harness edges"
else
    not_ok "ninja output is deterministic and has the harness edges"
fi

# ---------------------------------------------------------- error classes
bad "TOML syntax error" 17 "TOML syntax" '17s/.*/dtype = "f16/'
bad "TOML duplicate key" 17 "TOML syntax" '17s/.*/name = "A2"/'
bad "unknown top-level key" 3 "unknown key 'opp'" '3s/op =/opp =/'
bad "unknown key in [kernel]" 11 "unknown key 'shared'" '11s/shared_bytes/shared/'
bad "unknown key in the 2nd [[tensor]]" 23 "unknown key 'shap'" '23s/shape/shap/'
bad "unknown key in the 2nd [[case]]" 52 "unknown key 'sed'" '52s/seed/sed/'
bad "unknown key in [claim]" 36 "unknown key 'abstol'" '36s/atol/abstol/'
bad "missing key in [kernel]" 6 "missing key 'entry'" '8d'
bad "missing key in the 3rd [[tensor]]" 26 "missing key 'role'" '30d'
bad "missing top-level key" 1 "missing key 'summary'" '2d'
bad "wrong type: dims" 4 "dims is a string" '4s/.*/dims = "M"/'
bad "wrong type: seed" 45 "seed" '45s/.*/seed = "one"/'
bad "wrong type: atol" 36 "atol" '36s/.*/atol = "tight"/'
bad "unknown dtype" 22 "unknown dtype 'f8'" '22s/f16/f8/'
bad "unknown role" 30 "unknown role" '30s/output/scratch/'
bad "unknown op" 3 "unknown op" '3s/gemm/conv/'
bad "contract name differs from file name" 1 "differs from the file name" '1s/gemm_fwd/gemm/'
bad "unknown dim in a shape" 23 "unknown dim 'Q'" '23s/"N"/"Q"/'
bad "unknown dim in a grid expression" 10 "unknown dim 'X'" '10s/ceil_div(M, 16)/ceil_div(X, 16)/'
bad "bad expression: call of an unknown function" 10 "unknown function '__import__'" "10s/ceil_div(N, 16)/__import__('os')/"
bad "bad expression: power" 9 "operator '\\*\\*'" '9s/"16", "16"/"2 ** 4", "16"/'
bad "bad expression: attribute" 11 "attribute '.real' not allowed" '11s/"0"/"M.real"/'
bad "bad expression: float constant" 11 "not an integer" '11s/"0"/"0.5"/'
bad "bad expression: syntax" 10 "syntax error" '10s/ceil_div(N, 16)/ceil_div(N, /'
bad "bad expression: wrong arity" 10 "takes 2" '10s/ceil_div(N, 16)/ceil_div(N)/'
bad "bad require: not a condition" 40 "is not a condition" '40s/.*/expr = "K + 1"/'
bad "bad require: comparison in a shape" 17 "comparison" '17s/"M"/"M < 2"/'
bad "missing kernel file" 7 "not found" '7s/gemm_fwd.hip/nope.hip/'
bad "entry not found in the source" 8 "no __global__ function 'gemm_bwd'" '8s/gemm_fwd/gemm_bwd/'
bad "argument neither tensor nor dim" 12 "neither a tensor nor a dim" '12s/"K"]/"Z"]/'
bad "argument count differs from the kernel's" 12 "takes 6 parameters" '12s/, "K"]/]/'
bad "dim passed where a pointer is expected" 12 "argument .M. is passed to parameter" '12s/.*/args = ["A", "B", "M", "C", "N", "K"]/'
bad "case dims: a dim missing" 46 "does not give dim 'K'" '46s/, K = 4//'
bad "case dims: zero" 53 "dim N = 0" '53s/N = 8/N = 0/'
bad "case dims: negative" 46 "dim M = -4" '46s/M = 4/M = -4/'
bad "case dims: not an integer" 46 "dim K = 4.5" '46s/K = 4/K = 4.5/'
bad "case dims: unknown dim" 53 "unknown dim 'Q'" '53s/K = 8/K = 8, Q = 1/'
bad "fill for an unknown tensor" 47 "fill for unknown tensor 'D'" '47s/}/, D = "special" }/'
bad "fill missing for an input" 54 "no fill for input 'B'" '54s/, B = .*/ }/'
bad "fill for an output" 47 "fill for output tensor 'C'" '47s/}/, C = "special" }/'
bad "bad fill: unknown generator" 47 "unknown fill 'gauss'" '47s/A = "normal/A = "gauss/'
bad "bad fill: wide needs integers" 47 "not an integer" '47s/A = "normal(0, 1)"/A = "wide(-1.5, 3)"/'
bad "bad fill: mirror axis out of range" 54 "axis 2 out of range" '54s/mirror(1,/mirror(2,/'
bad "bad fill: trailing text" 47 "trailing text" '47s/A = "normal(0, 1)"/A = "special special"/'
bad "bad fill: missing argument" 54 "expected" '54s/mirror(1, normal(0, 1))/antimirror(0, normal(0, 1))/'
bad "duplicate case names" 51 "duplicate case name 'a'" '51s/"b"/"a"/'
bad "duplicate tensor names" 21 "declared twice" '21s/"B"/"A"/'
bad "unknown key inside an inline table" 46 "unknown dim 'L'" '46s/}/, L = 2 }/'
# the C grammar (core/tp_expr.c, core/tp_rng.c) and the registry refuse what the Python checks refused
bad "a C keyword as a dim name" 4 "dim name 'int' is not usable: a C keyword" '4s/"K"\]/"K", "int"]/'
bad "a function name as a dim name" 4 "dim name 'min' is not usable: a function" '4s/"K"\]/"K", "min"]/'
bad "a tp_ dim name" 4 "dim name 'tp_k' is not usable: tp_ names" '4s/"K"\]/"K", "tp_k"]/'
bad "a C keyword as a tensor name" 21 "tensor name 'char' is not usable: a C keyword" '21s/"B"/"char"/'
bad "bad expression: unknown function in a require" 40 "unknown function 'foo'" '40s/.*/expr = "foo(K) <= 8192"/'
bad "bad expression: next_pow2 with two arguments" 9 "next_pow2 takes 1 argument" '9s/"16", "16"/"next_pow2(M, N)", "16"/'
bad "bad expression: and/or in a value" 17 "'and'/'or' inside an integer expression" '17s/"M"/"M and K"/'
bad "bad expression: comparison as a function argument" 40 "comparison inside an integer expression" '40s/.*/expr = "max(K < 2, M) > 0"/'
bad "bad expression: C's && in a require" 40 "'&&' is written 'and'" '40s/ and / \&\& /'
bad "bad expression: constant beyond int64" 11 "does not fit in int64" '11s/"0"/"9223372036854775808"/'
bad "a dtype the op does not take" 22 "op gemm takes no f32 tensors" '22s/f16/f32/'
bad "a model value the op does not offer" 33 'model.accumulation is "fp64"' '33s/fp32/fp64/'
bad "bad fill: an index fill for an f16 tensor" 47 "fill 'randint' is for i32, i64 tensors, not f16" '47s/A = "normal(0, 1)"/A = "randint(0, 4)"/'
bad "bad fill: uniform needs lo < hi" 47 "uniform needs lo < hi" '47s/A = "normal(0, 1)"/A = "uniform(1, 0)"/'
bad "bad fill: wide beyond the generator's exponents" 47 "wide needs integer exponents" '47s/A = "normal(0, 1)"/A = "wide(-40, 0)"/'
# expected outcomes (harness/tp_expect.h): pass, refused or violated
bad "case expect: an unknown word" 49 "expect = 'maybe' in case 'a'" '48a expect = "maybe"'
bad "case expect: not a string" 49 "expect = 1 in case 'a'" '48a expect = 1'
bad "case expect: the verdict word instead of the outcome" 55 "expect = 'fail' in case 'b'" '54a expect = "fail"'
mkdir -p "$tmp/exp"
base | sed -e '48a expect = "violated"' >"$tmp/exp/gemm_fwd.toml"
if $GEN plan "$tmp/exp/gemm_fwd.toml" -o "$tmp/exp/plan.json" &&
    $PY -c 'import json, sys
p = json.load(open(sys.argv[1]))
sys.exit([c["expect"] for c in p["cases"]] != ["violated", "pass"])' "$tmp/exp/plan.json"; then
    ok "the plan carries each case's expectation, pass by default"
else
    not_ok "the plan carries each case's expectation, pass by default" "$(grep expect "$tmp/exp/plan.json" 2>&1)"
fi
bad "a case's timeout_s that is not positive" 48 "timeout_s = 0 in case 'a'" '48s/.*/timeout_s = 0/'
bad "a case's timeout_s that is a string" 48 "timeout_s = '60' in case 'a'" '48s/.*/timeout_s = "60"/'
# multi-line inline arrays / later keys: the locator finds the key's own line
bad "key after a multi-line array" 17 "unknown key 'nme'" '12s/.*/args = [\n  "A", "B", "C",\n  "M", "N", "K"]/;15s/name/nme/'

# issue 14's probe: contracts accepted that failed later or never, and
# tracebacks; each is now one line from the C grammar or the validator
bad "a NUL character in a shape expression" 17 "'M\\\\x00' holds a NUL character" '17s/"M"/"M\\u0000"/'
bad "an unknown [model] key" 34 "unknown key 'warp_shuffle' in \\[model\\]" '33s/$/\nwarp_shuffle = "yes"/'
bad "a misspelt [model] key" 34 "unknown key 'fmaa' in \\[model\\]" '33s/$/\nfmaa = "any"/'
bad "fma = \"sometimes\"" 34 'model.fma is "sometimes"' '33s/$/\nfma = "sometimes"/'
bad "a shape M / 0" 17 "extent 0 'M / 0' cannot be evaluated for case 'a' .*division by zero" '17s/"M"/"M \/ 0"/'
bad "a shape M - 100000" 17 "extent 0 'M - 100000' is -99996 for case 'a'" '17s/"M"/"M - 100000"/'
bad "block \"0\"" 9 "block\\[0\\] '0' is 0 for case 'a'" '9s/"16", "16"/"0", "16"/'
bad "grid 0 for a case" 10 "grid\\[0\\] 'N - 4' is 0 for case 'a'" '10s/ceil_div(N, 16)/N - 4/'
bad "fill normal(0, 1e999)" 47 "1e999 is not a finite number" '47s/A = "normal(0, 1)"/A = "normal(0, 1e999)"/'
bad "INT64_MIN / -1 in a require" 40 "cannot be evaluated for case 'a' .*integer overflow: -9223372036854775808 / -1" '40s/.*/expr = "(0-4611686018427387904-4611686018427387904)\/(0-1) > 0"/'
bad "a wrapped product in a require" 40 "integer overflow: 281474976710656 \\* 65536" '40s/.*/expr = "65536*65536*65536*65536 <= 2147483647"/'
# a case its requirements refuse may have extents that would be invalid
mkdir -p "$tmp/okreq"
base | sed -e '17s/"M"/"M - 5"/' -e '40s/.*/expr = "M >= 8"/' >"$tmp/okreq/gemm_fwd.toml"
if $GEN check "$tmp/okreq/gemm_fwd.toml" 2>"$tmp/err"; then
    ok "an extent below 1 in a case its requirements refuse is accepted (the runtime refuses the case first)"
else
    not_ok "an extent below 1 in a case its requirements refuse is accepted" "$(cat "$tmp/err")"
fi
# huge texts: one line, no traceback, no crash of build/tp_registry
long_case() { # DESC LINE REGEX PYTHON-EXPR-FOR-LINE-17
    case_no=$((case_no + 1))
    mkdir -p "$tmp/$case_no"
    base | /usr/bin/python3 -c "import sys; l = sys.stdin.read().split('\n'); l[16] = $4; print('\n'.join(l), end='')" \
        >"$tmp/$case_no/gemm_fwd.toml"
    check_refusal "$1" "$tmp/$case_no/gemm_fwd.toml" "$2" "$3"
}
long_case "a 100000-term sum" 17 "expression too long \\(more than 256 terms\\)" "'shape = [\"' + ' + '.join(['M'] * 100000) + '\", \"K\"]'"
long_case "100000 unary minuses" 17 "nested too deeply \\(more than 64 levels" "'shape = [\"' + '-' * 100000 + 'M\", \"K\"]'"
long_case "100000 nested parentheses" 17 "nested too deeply" "'shape = [\"' + '(' * 100000 + 'M' + ')' * 100000 + '\", \"K\"]'"
case_no=$((case_no + 1))
mkdir -p "$tmp/$case_no"
base | /usr/bin/python3 -c "import sys; l = sys.stdin.read().split('\n'); l[46] = 'fill = { A = \"' + 'mirror(0, ' * 5000 + 'normal(0, 1)' + ')' * 5000 + '\", B = \"normal(0, 1)\" }'; print('\n'.join(l), end='')" \
    >"$tmp/$case_no/gemm_fwd.toml"
check_refusal "a 5000-deep mirror() fill" "$tmp/$case_no/gemm_fwd.toml" 47 "fills nested more than 8 deep"

# model constants must appear verbatim in the kernel source (gelu_bwd)
mkdir -p "$tmp/gelu"
cl=$(grep -n '^constants = ' contracts/gelu_bwd.toml | cut -d: -f1)
sed -e 's/a = "0.044715f"/a = "0.0447f"/' contracts/gelu_bwd.toml >"$tmp/gelu/gelu_bwd.toml"
check_refusal "model constant not in the kernel source" "$tmp/gelu/gelu_bwd.toml" "$cl" "constant a = '0.0447f' does not appear verbatim"

# a malformed HIP device-math figure ([model.tanhf_ulp.hip], gelu_fwd): FILE:LINE, what was expected
shipbad() { # CONTRACT DESC PATTERN SED RE: the shipped contract edited by SED, refused at the line of PATTERN
    local ct=$1 desc=$2 pat=$3 script=$4 re=$5 l
    l=$(grep -n "$pat" "contracts/$ct.toml" | head -1 | cut -d: -f1)
    case_no=$((case_no + 1))
    mkdir -p "$tmp/$case_no"
    sed -e "$script" "contracts/$ct.toml" >"$tmp/$case_no/$ct.toml"
    check_refusal "$desc" "$tmp/$case_no/$ct.toml" "$l" "$re"
}
hipbad() { shipbad gelu_fwd "$@"; }
hipbad "hip figure as a string" '^figure = ' 's/^figure = 2/figure = "2"/' "figure = '2'"
hipbad "hip metric other than the table's" '^metric = ' 's/^metric = .*/metric = "max_ulp"/' "metric = 'max_ulp'"
hipbad "hip range reversed" '^range = ' 's/^range = .*/range = [5.0, -5.0]/' "range = \\[5.0, -5.0\\]"
hipbad "hip entry without host_ulp" '^\[model.tanhf_ulp.hip\]' '/^host_ulp = /d' "missing key 'host_ulp' in model.tanhf_ulp.hip"
hipbad "hip entry with an unknown key" '^figure = ' 's/^figure = 2/max_ulp = 2\nfigure = 2/' "unknown key 'max_ulp' in model.tanhf_ulp.hip"

# op elementwise's [model.expr] and [model.ulp] (swiglu_fwd): FILE:LINE in the C grammar's words
ewbad() { shipbad swiglu_fwd "$@"; }
ewbad "a double literal in an expression" '^y = ' 's/1.0f + expf/1.0 + expf/' "'1.0' is a double constant in C"
ewbad "an unknown name in an expression" '^y = ' 's/expf(-a)/expf(-q)/' "unknown name 'q'"
ewbad "an unknown function in an expression" '^y = ' 's/expf(-a)/exp(-a)/' "unknown function 'exp'"
ewbad "a device function without a declared ulp bound" '^expf = ' 's/^expf = { cuda = 2 }/expf = { cuda = "2" }/' "uses expf without a documented ulp bound"
ewbad "an expression for a tensor that is not an output" '^y = ' 's/^y = /z = /' "model.expr.z names no output tensor"
# indexed reads (rope_fwd): an INDEX is a shape expression over the dims, row and col, checked by the generator
shipbad rope_fwd "an INDEX over an unknown name" '^y = ' 's/pos\[row \/ heads\]/pos[row \/ nheads]/' "pos\[row / nheads\]: unknown dim 'nheads'"
shipbad rope_fwd "an INDEX over both row and col" '^y = ' 's/x\[(col + d \/ 2) % d\]/x[row + col]/' "x\[row \+ col\]: the index depends on both row and col"

# op rowwise's comparisons and indices (softmax_xent_fused): FILE:LINE, what was expected
xebad() { shipbad softmax_xent_fused "$@"; }
xebad "'=' for == in select" '^grad = ' 's/index(col) == target, 1.0f/index(col) = target, 1.0f/' "'=' \\(an assignment in C\\)"
xebad "a comparison used as a value" '^grad = ' 's/select(index(col) == target, 1.0f, 0.0f)/(index(col) == target)/' "a comparison used as a value"
xebad "an indexed read of an input in op rowwise" '^xt = ' 's/target, x, 0.0f/target, x[col], 0.0f/' "x\\[col\\]: an indexed read of an input is op elementwise's"
xebad "a per-row output reading index(col)" '^loss = ' 's/m - xt)/m - xt * index(col))/' "model.expr.loss has one element per row but reads an index\\(col\\)"

# op rowwise's [model.reduce] (rmsnorm_fwd): FILE:LINE, what was expected
rwbad() { shipbad rmsnorm_fwd "$@"; }
rwbad "a reduction in a declared order" '^ss = ' 's/order = "any"/order = "sequential"/' "order = \"sequential\""
rwbad "a reduction of two kinds" '^ss = ' 's/{ sum = "x \* x"/{ sum = "x * x", max = "x"/' "\"sum\": \"x \* x\", \"max\": \"x\""
rwbad "a reduction named as a tensor" '^ss = ' 's/^ss = /w = /' "reduction w has the name of a tensor or dim"
rwbad "a term naming a later reduction" '^ss = ' 's/^ss = { sum = "x \* x", order = "any" }/ss = { sum = "x * m", order = "any" }\nm = { max = "x", order = "any" }/' "unknown name 'm'"
rwbad "an expression naming no reduction or input" '^y = ' 's/ss \/ cols/sq \/ cols/' "unknown name 'sq'"
shipbad rmsnorm_bwd_weight "a reduction axis other than row or column" '^along = ' 's/^along = "column"/along = "diagonal"/' 'model.along is "diagonal"'
rwbad "no [model.reduce]" '^\[model\]' '/^\[model.reduce\]/,/^ss = /d' "op rowwise needs \[model.reduce\]"

# op contraction's [model] (gemm_bias_gelu, gemm_bias_gelu_nt): FILE:LINE, what was expected
ctbad() { shipbad gemm_bias_gelu "$@"; }
ctbad "a double literal in the epilogue" '^C = ' 's/^C = "0.5f \* /C = "0.5 * /' "'0.5' is a double constant in C"
ctbad "an epilogue naming an operand" '^C = ' 's/(acc + bias) \* (acc + bias) \* (acc + bias)/(acc + bias) * (acc + bias) * B/' "unknown name 'B'"
ctbad "an epilogue with an indexed read" '^C = ' 's/(acc + bias) \* (acc + bias) \* (acc + bias)/bias[col]/' "model.expr.C reads an input at an index"
ctbad "tanhf without a documented ulp bound" '^tanhf = ' 's/^tanhf = { cuda = 2 }/tanhf = { cuda = "2" }/' "uses tanhf without a documented ulp bound"
ctbad "a tensor named acc" '^name = "bias"' 's/^name = "bias"/name = "acc"/;s/"bias", "C"/"acc", "C"/' "a tensor is named acc"
ctbad "a bf16 operand" '^dtype = "f16"' '0,/^dtype = "f16"/s//dtype = "bf16"/' "operand A is bf16"
ctbad "a faithful accumulation" '^accumulation = ' 's/^accumulation = "fp32" /accumulation = "fp32_faithful" /' 'model.accumulation is "fp32_faithful"'
shipbad gemm_bias_gelu_nt "transpose_b as a string" '^transpose_b = ' 's/^transpose_b = true/transpose_b = "yes"/' "model.transpose_b is a string"

# a case's watchdog goes into the plan for that case only
mkdir -p "$tmp/to"
base | sed -e '48s/.*/timeout_s = 2.5/' >"$tmp/to/gemm_fwd.toml"
if $GEN plan "$tmp/to/gemm_fwd.toml" -o "$tmp/to/plan.json" 2>/dev/null && grep -q '"timeout_s": 2.5' "$tmp/to/plan.json" &&
    [ "$(grep -c timeout_s "$tmp/to/plan.json")" = 1 ]; then
    ok "a case's timeout_s is in the plan, for that case only"
else
    not_ok "a case's timeout_s is in the plan, for that case only" "$(cat "$tmp/to/plan.json" 2>&1 | head -5)"
fi

# stdout stays empty and nothing is written on refusal
mkdir -p "$tmp/w"
base | sed -e '3s/gemm/conv/' >"$tmp/w/gemm_fwd.toml"
$GEN plan "$tmp/w/gemm_fwd.toml" -o "$tmp/w/out.json" >"$tmp/w/stdout" 2>/dev/null
rc=$?
if [ "$rc" = 2 ] && [ ! -e "$tmp/w/out.json" ] && [ ! -s "$tmp/w/stdout" ]; then
    ok "plan writes nothing for a refused contract"
else
    not_ok "plan writes nothing for a refused contract" "rc=$rc"
fi

echo "1..$n"
[ "$fails" = 0 ]
