#!/usr/bin/env bash
# The verdict-quality corpus: gen/tpgen.py's variant header validation and
# variant plans; `tolproof verdicts` on hand-made variant runs whose
# verdicts under each checker are known in advance (tolproof's interval,
# the pilots' 1e-2 with softmax row sums, torch.testing's float16 defaults,
# llm.c's tolerance); and the recorded corpus recorded/variants/*/* when
# there is one: it re-derives, tolproof has no false alarm and kills at
# least 95% of the wrong variants.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate py=/usr/bin/python3
. tests/tap.sh

# ---- gen: headers and plans
hdr() { # hdr FILE NAME CONTRACT EXPECT ENTRY CASES [MODEL]
    { echo "/* variant: $2"; echo " * contract: $3"; echo " * expect: $4"; echo " * entry: $5"
      echo " * cases: $6"; [ -n "${7:-}" ] && echo " * model: $7"; echo " * what: a test variant"; echo " */"
      sed "s/gemm_fwd(/$5(/" kernels/gemm_fwd.hip; } >"$1"
}
mkdir -p "$tmp/v"
hdr "$tmp/v/gemm_fwd_t.hip" gemm_fwd_t gemm_fwd correct gemm_fwd_t "cancel_128x64x512 normal_64" "accumulation=fp32_faithful"
$py gen/tpgen.py variant-plan "$tmp/v/gemm_fwd_t.hip" -o "$tmp/t.plan.json" 2>"$tmp/err"
ok $? "a valid variant header gives a plan"
grep -q '"expect": "correct"' "$tmp/t.plan.json" && grep -q '"contract": "gemm_fwd"' "$tmp/t.plan.json" &&
    grep -q '"entry": "gemm_fwd_t"' "$tmp/t.plan.json" && grep -q '"accumulation": "fp32_faithful"' "$tmp/t.plan.json"
ok $? "the plan carries the variant key, the base contract's name, the variant's entry and the model override"
[ "$(grep -c '"seed"' "$tmp/t.plan.json")" = 2 ] && [ "$(grep -o '"name": "[a-z0-9_]*"' "$tmp/t.plan.json" | grep -c -e normal_64 -e cancel_128x64x512)" = 2 ]
ok $? "the plan keeps only the listed cases"
$py gen/tpgen.py variant-harness "$tmp/v/gemm_fwd_t.hip" --backend cuda -o "$tmp/t.hip" && grep -q "Variant gemm_fwd_t" "$tmp/t.hip" &&
    grep -q 'hipLaunchKernelGGL(gemm_fwd_t' "$tmp/t.hip"
ok $? "the harness source launches the variant's entry"

bad() { # bad DESCRIPTION LINE PATTERN: the last written file must be refused at LINE
    $py gen/tpgen.py variants --check "$tmp/v/$3.hip" 2>"$tmp/err" >/dev/null
    local rc=$?
    [ $rc = 2 ] && grep -q "^$tmp/v/$3.hip:$2: .*; expected " "$tmp/err"
    ok $? "$1 is refused at line $2 ($(head -c 120 "$tmp/err"))"
}
hdr "$tmp/v/gemm_fwd_a.hip" gemm_fwd_a gemm_fwd maybe gemm_fwd_a normal_64; bad "expect: maybe" 3 gemm_fwd_a
hdr "$tmp/v/gemm_fwd_b.hip" gemm_fwd_b gemm_fwd correct nope normal_64; sed -i 's/void nope(/void other(/' "$tmp/v/gemm_fwd_b.hip"; bad "an entry that is not a __global__" 4 gemm_fwd_b
hdr "$tmp/v/gemm_fwd_c.hip" gemm_fwd_c gemm_fwd correct gemm_fwd_c "normal_64 no_such_case"; bad "an unknown case" 5 gemm_fwd_c
hdr "$tmp/v/gemm_fwd_d.hip" gemm_fwd_d gemm_fwd correct gemm_fwd_d normal_64 "no_such_key=1"; bad "an unknown model key" 6 gemm_fwd_d
hdr "$tmp/v/gemm_fwd_e.hip" gemm_fwd_e gemm_fwd wrong gemm_fwd_e normal_64 "order=any"; bad "model overrides on a wrong variant" 6 gemm_fwd_e
hdr "$tmp/v/gemm_fwd_i.hip" gemm_fwd_i gemm_fwd correct gemm_fwd_i normal_64 "accumulation=fp64"; bad "a model value the registry does not list for the op" 6 gemm_fwd_i
hdr "$tmp/v/gemm_fwd_f.hip" gemm_fwd_f no_such_contract correct gemm_fwd_f normal_64; bad "an unknown contract" 2 gemm_fwd_f
hdr "$tmp/v/gemm_fwd_g.hip" gemm_fwd_x gemm_fwd correct gemm_fwd_g normal_64; bad "a name that is not the file's" 1 gemm_fwd_g
hdr "$tmp/v/gemm_fwd_h.hip" gemm_fwd_h gemm_fwd correct gemm_fwd_h normal_64; sed -i '/ \* what:/d' "$tmp/v/gemm_fwd_h.hip"
bad "a header without what" 5 gemm_fwd_h
$py gen/tpgen.py variants "$tmp/v/gemm_fwd_t.hip" "$tmp/v/gemm_fwd_a.hip" -o "$tmp/v.ninja" 2>/dev/null
[ $? = 2 ] && grep -q "^build variants: tp_variants_check" "$tmp/v.ninja"
ok $? "an invalid header makes ninja variants fail (and report it), not configure"

# every variant of the corpus names cases its contract still has (a renamed
# or removed case would otherwise surface only when `ninja variants` runs)
$py gen/tpgen.py variants --check kernels/variants/*.hip >/dev/null 2>"$tmp/err"
ok $? "every header in kernels/variants validates against the current contracts ($(head -c 160 "$tmp/err"))"

# ---- tolproof verdicts on hand-made variant runs
mkvariant() { # mkvariant DIR NAME EXPECT: turn a run directory into a variant run
    sed -i "0,/^{/s//{\n  \"variant\": {\"name\": \"$2\", \"expect\": \"$3\", \"what\": \"test\", \"contract\": \"gemm_fwd\"},/" "$1/plan.json"
}
plan=build/gen/gemm_fwd.plan.json
small=(--case normal_64 --case ragged_100x37x250 --case tiny_1x1x1 --case cancel_128x64x512 --case special_64x64x32)
"$emu" "$plan" "$tmp/r/good" "${small[@]}" >/dev/null 2>&1
ok $? "emulated correct GEMM run"
"$emu" "$plan" "$tmp/r/drop" "${small[@]}" --mutant drop_last_term >/dev/null 2>&1
[ $? = 1 ]; ok $? "emulated GEMM with the last k term dropped violates its contract"
mkvariant "$tmp/r/good" emu_good correct
mkvariant "$tmp/r/drop" emu_drop wrong

# One-element runs (case tiny_1x1x1, M = N = K = 1, constant inputs): the
# exact value is a product we know, and the stored output is set by hand.
one() { # one NAME EXPECT A B OUT_BITS
    sed -e 's/"A": "normal(0, 1)"/"A": "const('"$3"')"/' -e 's/"B": "normal(0, 1)"/"B": "const('"$4"')"/' "$plan" >"$tmp/one.plan.json"
    "$emu" "$tmp/one.plan.json" "$tmp/r/$1" --case tiny_1x1x1 >/dev/null 2>&1
    local f="$tmp/r/$1/outputs/tiny_1x1x1/C.npy" size
    size=$(stat -c %s "$f")
    printf "\\x${5:2:2}\\x${5:0:2}" | dd of="$f" bs=1 seek=$((size - 2)) conv=notrunc status=none
    mkvariant "$tmp/r/$1" "$1" "$2"
}
# exact 100: 100 exactly; no checker flags it
one exact100 correct 10 10 5640
# exact 100.078125: its RN16 100.0625 (err 0.0156) is what a correct kernel returns:
# pilots (> 1e-2) and llm.c (> 1e-4 + 2^-23 * 100) flag it, torch (1e-5 + 0.1) does not
one round100 correct 10.0078125 10 5641
# 100.125 (err 0.047): outside the admitted [100.0625, 100.0625]; torch misses it
one off2 wrong 10.0078125 10 5642
# exact (1 + 2^-10)^2 = 1.00195408; 1.00390625 (err 1.95e-3) is 2 ulps off:
# pilots miss it (< 1e-2); torch (1.012e-3) and llm.c catch it
one near1 wrong 1.0009765625 1.0009765625 3c04
one nan wrong 10 10 7e00
one inf wrong 10 10 7c00
"$tp" verdicts --json "$tmp/v.json" "$tmp"/r/* >"$tmp/table.md" 2>"$tmp/verdicts.err"
ok $? "tolproof verdicts exits 0 when tolproof flags no correct variant"
row() { grep "^| $1 |" "$tmp/table.md" | awk -F'|' '{gsub(/ /, "", $4); gsub(/ /, "", $5); print $4 " " $5}'; }
check_row() { [ "$(row "$1")" = "$2" ]; ok $? "$1: false alarms / correct, kills / wrong = $2 (got $(row "$1"))"; }
check_row tolproof "0/3 5/5"
check_row pilots "2/3 4/5"
check_row torch "1/3 4/5"
check_row llmc "2/3 5/5"
grep -q "^| near1 | wrong | tolproof, torch, llmc |" "$tmp/table.md"
ok $? "the disagreement list names the checkers that flagged a variant"
grep -q "^| exact100 " "$tmp/table.md"; [ $? = 1 ]; ok $? "a variant every checker judges alike and as expected is not a disagreement"
grep -q "^| gemm_fwd | gemm | cancel_128x64x512 | 1 | " "$tmp/table.md"
ok $? "the tightness row takes the cancel case of the correct variants"
grep -q "warning: .*off2/tiny_1x1x1: results.json says pass, the stored outputs fail" "$tmp/verdicts.err"
ok $? "a stored output that results.json does not describe is reported"
grep -q '"false_alarms": 0' "$tmp/v.json" && grep -q '"adversarial_case": "cancel_128x64x512"' "$tmp/v.json"
ok $? "--json writes the counts and the tightness"

sed -i 's/"expect": "wrong"/"expect": "correct"/' "$tmp/r/off2/plan.json"
"$tp" verdicts "$tmp"/r/* >"$tmp/table2.md" 2>"$tmp/verdicts2.err"
[ $? = 1 ]; ok $? "exit 1 when tolproof flags a correct variant"
grep -q "^tolproof verdicts: unexpected outcome: $tmp/r/off2/tiny_1x1x1: expected pass, got violated$" "$tmp/verdicts2.err"
ok $? "and names the case: expected pass, got violated"
check_row2() { [ "$(grep "^| tolproof |" "$tmp/table2.md" | awk -F'|' '{gsub(/ /, "", $4); print $4}')" = "1/4" ]; }
check_row2; ok $? "and the table counts it as a false alarm"
# a wrong variant that no case shows: its expected outcome is a violation somewhere
cp -r "$tmp/r/exact100" "$tmp/missed"
sed -i 's/"expect": "correct"/"expect": "wrong"/' "$tmp/missed/plan.json"
"$tp" verdicts "$tmp/missed" >/dev/null 2>"$tmp/missed.err"
[ $? = 1 ] && grep -q "^tolproof verdicts: unexpected outcome: $tmp/missed: expected a violation on some case (a wrong variant), got none" "$tmp/missed.err"
ok $? "exit 1 when tolproof misses a wrong variant, named"
"$tp" verdicts "$tmp/r/good" build/gen >/dev/null 2>&1
[ $? = 2 ]; ok $? "a directory that is not a run is an error (exit 2)"

# softmax: elements within 1e-2 but rows that do not sum to 1 within 1e-2
"$emu" build/gen/softmax_fwd.plan.json "$tmp/s/tail" --case normal_256x1024 --mutant drop_tail >/dev/null 2>&1
sed -i '0,/^{/s//{\n  "variant": {"name": "tail", "expect": "wrong", "what": "test", "contract": "softmax_fwd"},/' "$tmp/s/tail/plan.json"
"$tp" verdicts --json "$tmp/s.json" "$tmp/s/tail" >"$tmp/s.md" 2>/dev/null
pil=$(grep -A7 '"pilots"' "$tmp/s.json")
rows=$(echo "$pil" | sed -n 's/.*"rows_failed": \([0-9]*\).*/\1/p') fails=$(echo "$pil" | sed -n 's/.*"failed": \([0-9]*\).*/\1/p')
[ -n "$rows" ] && [ "$rows" -gt 0 ] && [ "$rows" = "$fails" ] && grep -q "^| pilots | .* | 0 / 0 | 1 / 1 |" "$tmp/s.md"
ok $? "softmax_fwd: the pilots' check flags rows that do not sum to 1 (rows $rows, failures $fails)"

# ---- the recorded corpus
shopt -s nullglob
runs=(recorded/variants/*/*/)
if [ ${#runs[@]} -eq 0 ]; then
    n=$((n + 1)); echo "ok $n # SKIP no recorded corpus"
else
    # recorded before plans carried expectations: the current contracts' plans say them
    "$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$tmp/rec.log"
    ok $? "every recorded variant run (${#runs[@]}) re-derives, with its expected outcomes"
    "$tp" verdicts --expect-from build/gen "${runs[@]}" >"$tmp/rec.md" 2>"$tmp/rec.err"
    ok $? "tolproof flags no correct variant of the recorded corpus, and every case has its expected outcome"
    r=$(grep "^| tolproof |" "$tmp/rec.md" | awk -F'|' '{gsub(/ /, "", $4); gsub(/ /, "", $5); print $4 " " $5}')
    fa=${r%%/*} k=${r#* } kills=${k%%/*} wrong=${k#*/}
    [ "$fa" = 0 ] && [ "$wrong" -gt 0 ] && [ $((kills * 100)) -ge $((wrong * 95)) ]
    ok $? "tolproof: $fa false alarms, kills $kills of $wrong wrong variants (>= 95%)"
fi
tap_end
