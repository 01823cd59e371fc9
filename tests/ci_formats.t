#!/usr/bin/env bash
# The CI formats (--junit FILE, --format github) of a harness, `tolproof
# replay` and `tolproof check`. Every JUnit file is parsed with Python's
# xml.etree (Debian's /usr/bin/python3; xmllint too where installed), its
# counts checked against themselves and against results.json: one testcase
# per case and output (per case when it has no outputs), expected refusals
# and violations passing with a note, a violation against the expectation
# a <failure> carrying the verdict, the largest err/bound and the first
# violations, an unexpected refusal an <error>, cases a run with --case
# left out <skipped>. The GitHub annotations are one line each: an ::error
# per failing testcase, a ::notice per expected refusal or violation.
# Hostile names (<&>"', control characters, U+FFFE, newlines that would
# start another workflow command) go through tests/tool_ci_formats.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof pb=build/tests/tool_playback tool=build/tests/tool_ci_formats py=/usr/bin/python3
rec=recorded/nvidia-h200
. tests/tap.sh

# junit FILE [RESULTS.json PLAN.json [ONLY]...]: parses FILE and checks
# its structure (every count attribute equals the elements under it; every
# testcase has a classname and a name; a failure or error has a message
# and a type) and, given run directories as RESULTS/PLAN pairs, that its
# testcases are exactly the cases and outputs of those results.json files.
# Prints "tests failures errors skipped notes" on stdout.
junit() {
    $py - "$@" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
def count(el):
    cases = el.iter("testcase")
    c = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for t in el.iter("testcase"):
        c["tests"] += 1
        kids = [k.tag for k in t]
        c["failures"] += kids.count("failure")
        c["errors"] += kids.count("error")
        c["skipped"] += kids.count("skipped")
        assert sum(kids.count(k) for k in ("failure", "error", "skipped")) <= 1, kids
        assert t.get("classname") and t.get("name"), t.attrib
        for k in t:
            if k.tag in ("failure", "error"):
                assert k.get("message") and k.get("type"), k.attrib
    for k, v in c.items():
        assert el.get(k) == str(v), (el.tag, el.get("name"), k, el.get(k), v)
    return c
total = count(root)
for s in root.findall("testsuite"):
    count(s)
notes = sum(1 for t in root.iter("testcase") if t.find("system-out") is not None)
# the testcases of each run: its cases with outputs by output, the others by case
dirs = sys.argv[2:]
if dirs:
    want = []
    for d in dirs:
        res = json.load(open(d + "/results.json"))
        for c in res["cases"]:
            outs = sorted(c.get("outputs", {})) if c["verdict"] in ("pass", "fail") else []
            want += [c["case"] + "/" + o for o in outs] or [c["case"]]
    got = [t.get("name") for t in root.iter("testcase") if t.get("name") != "replay"]
    assert sorted(got) == sorted(want), (sorted(set(got) ^ set(want)))
print(total["tests"], total["failures"], total["errors"], total["skipped"], notes)
PY
}
xmlok() { if command -v xmllint >/dev/null; then xmllint --noout "$1"; else true; fi; }

# 1. A harness (tp_harness_main on the playback device, as in
#    tests/playback.t) of a pilot whose violations are expected and of a
#    contract with an expected refusal.
#    The current contract's plan, less the cases added to the contract
#    after the run was recorded (they have no recorded outputs to play
#    back until a GPU records them).
for name in layernorm_bwd_input_pilot embedding_bwd; do
    $py -c 'import json, sys
p = json.load(open(sys.argv[1]))
have = {c["case"] for c in json.load(open(sys.argv[2]))["cases"]}
p["cases"] = [c for c in p["cases"] if c["name"] in have]
json.dump(p, open(sys.argv[3], "w"), indent=1, sort_keys=True)' build/gen/$name.plan.json $rec/$name/results.json \
        "$tmp/$name.plan.json"
    "$pb" "$tmp/$name.plan.json" $rec/$name --out "$tmp/$name" --junit "$tmp/$name.xml" --format github \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    ok $? "harness $name --junit --format github: exit 0 (every case as expected)"
    c=$(junit "$tmp/$name.xml" "$tmp/$name")
    ok $? "its JUnit file parses, counts agree, one testcase per case and output of results.json ($c)"
    xmlok "$tmp/$name.xml"
    ok $? "xmllint reads it"
    # expected outcomes: passing testcases with a note, one ::notice each
    want=$($py -c 'import json, sys
p = {c["name"]: c["expect"] for c in json.load(open(sys.argv[1] + "/plan.json"))["cases"]}
n = 0
for c in json.load(open(sys.argv[1] + "/results.json"))["cases"]:
    if p[c["case"]] != "pass":
        n += len(c.get("outputs", {})) if c["verdict"] in ("pass", "fail") else 1
print(n)' "$tmp/$name")
    set -- $c
    [ "$2 $3 $4" = "0 0 0" ] && [ "$5" = "$want" ] && [ "$want" -gt 0 ] &&
        [ "$(grep -c '^::notice ' "$tmp/$name.out")" = "$want" ] && ! grep -q '^::error' "$tmp/$name.out"
    ok $? "$name: no failure, $want expected outcome(s) noted in <system-out> and as ::notice lines"
done
grep -q '<system-out>as expected (expect = &quot;violated&quot; in the contract): violated: ' \
    "$tmp/layernorm_bwd_input_pilot.xml" &&
    grep -q '^::notice file=.*/results.json,title=embedding_bwd/refused_out_of_range::as expected (expect = "refused" in the contract): refused by plan: ' \
        "$tmp/embedding_bwd.out"
ok $? "the notes say what was expected and what happened"

# 2. The same harness with a wrong expectation (a pass where a violation
#    is expected) and a run of selected cases.
$py -c 'import json, sys
p = json.load(open(sys.argv[1]))
for c in p["cases"]:
    if c["name"] == "constant_rows_32x1024":
        c["expect"] = "violated"
json.dump(p, open(sys.argv[2], "w"), indent=2)' build/gen/layernorm_bwd_input_pilot.plan.json "$tmp/edited.plan.json"
"$pb" "$tmp/edited.plan.json" $rec/layernorm_bwd_input_pilot --out "$tmp/edited" --junit "$tmp/edited.xml" \
    --format github --case pm3_64x1024 --case constant_rows_32x1024 >"$tmp/edited.out" 2>&1
[ $? = 1 ]; ok $? "a pass where a violation is expected: the harness exits 1"
c=$(junit "$tmp/edited.xml") && set -- $c && [ "$1 $2 $3 $4" = "4 1 0 2" ]
ok $? "its JUnit file: 4 testcases, the unexpected pass a failure, the 2 cases not selected skipped ($c)"
$py - "$tmp/edited.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
f = [t for t in r.iter("testcase") if t.find("failure") is not None]
assert [t.get("name") for t in f] == ["constant_rows_32x1024/dx"], f
e = f[0].find("failure")
assert e.get("type") == "unexpected pass" and "max err/bound 0" in e.get("message") and "expected violated" in e.get("message"), e.attrib
s = sorted(t.get("name") for t in r.iter("testcase") if t.find("skipped") is not None)
assert s == ["pm0.1_64x1024", "pm7_128x256"], s
PY
ok $? "the failure names the verdict, the largest err/bound and the expectation; the skipped ones are named"
[ "$(grep -c '^::error ' "$tmp/edited.out")" = 1 ] &&
    grep -q '^::error file=.*edited/results.json,title=layernorm_bwd_input_pilot/constant_rows_32x1024/dx::pass: 0 of 32768 elements outside the bound, max err/bound 0' "$tmp/edited.out"
ok $? "one ::error line, for that output"

# 3. tolproof replay: the recorded runs with their expectations, and
#    without them (the pilots' violations and the refusals then fail).
# (four of them, the ones with expected outcomes and the quickest: tests/replay.t replays them all)
runs=($rec/embedding_bwd_pilot $rec/layernorm_bwd_input_pilot $rec/embedding_bwd $rec/gelu_fwd)
"$tp" replay --quiet --expect-from build/gen --junit "$tmp/replay.xml" --format github "${runs[@]}" >"$tmp/replay.out"
ok $? "replay --expect-from build/gen --junit --format github of four recorded runs: exit 0"
c=$(junit "$tmp/replay.xml" "${runs[@]}") && set -- $c && [ "$2 $3 $4" = "0 0 0" ] && [ "$5" -gt 0 ] &&
    [ "$(grep -c '^::notice ' "$tmp/replay.out")" = "$5" ] && ! grep -q '^::error' "$tmp/replay.out"
ok $? "its JUnit file: every case and output of every results.json, none failing, $5 expected outcomes noted ($c)"
[ "$($py -c 'import sys, xml.etree.ElementTree as ET; print(len(ET.parse(sys.argv[1]).getroot().findall("testsuite")))' "$tmp/replay.xml")" = ${#runs[@]} ]
ok $? "one testsuite per run (${#runs[@]})"
# the pilot's recorded plan carries expectations since its 2026-11-23
# recording: a copy without them stands for a run recorded before them
cp -r $rec/embedding_bwd_pilot "$tmp/noexp.run"
$py - "$tmp/noexp.run/plan.json" <<'PY'
import json, sys
def strip(o):
    if isinstance(o, dict):
        o.pop("expect", None)
        for v in o.values():
            strip(v)
    elif isinstance(o, list):
        for v in o:
            strip(v)
p = json.load(open(sys.argv[1]))
strip(p)
json.dump(p, open(sys.argv[1], "w"), indent=2)
PY
"$tp" replay --quiet --junit "$tmp/noexp.xml" --format github "$tmp/noexp.run" >"$tmp/noexp.out"
[ $? = 1 ]; ok $? "replay of a pilot without its expectations exits 1"
$py - "$tmp/noexp.xml" "$tmp/noexp.run/results.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
res = json.load(open(sys.argv[2]))
viol = {c["case"] + "/" + o: v for c in res["cases"] for o, v in c.get("outputs", {}).items() if v["violations"]}
refused = [c["case"] for c in res["cases"] if c["verdict"] == "refused"]
assert r.get("failures") == str(len(viol)) and r.get("errors") == str(len(refused)), (r.attrib, len(viol))
for t in r.iter("testcase"):
    f = t.find("failure")
    if f is not None:
        v = viol[t.get("name")]
        msg, body = f.get("message"), f.text
        assert f.get("type") == "violated", f.attrib
        assert msg.startswith("violated: %d of %d elements outside the bound, max err/bound " % (v["violations"], v["elements"])), msg
        lines = [l for l in body.splitlines() if l.startswith("[")]
        assert 1 <= len(lines) <= 5 and len(lines) == min(5, len(v["first_violations"])), lines
        i = v["first_violations"][0]["index"]
        assert lines[0].startswith("[%d, %d]: got " % (i[0], i[1])) and "admitted [" in lines[0], lines[0]
    e = t.find("error")
    if e is not None:
        assert t.get("name") in refused and e.get("type") == "refused" and "expected pass" in e.get("message"), e.attrib
PY
ok $? "violations are <failure>s with the counts, largest err/bound and first violations of results.json; the refusal an <error>"
nerr=$($py -c 'import json, sys; r = json.load(open(sys.argv[1])); print(sum(1 for c in r["cases"] for v in c.get("outputs", {}).values() if v["violations"]) + sum(1 for c in r["cases"] if c["verdict"] == "refused"))' "$tmp/noexp.run/results.json")
[ "$(grep -c '^::error ' "$tmp/noexp.out")" = "$nerr" ] && [ "$nerr" -ge 8 ] && grep -q '^::error .*::violated: .*%0Afirst violations' "$tmp/noexp.out"
ok $? "and $nerr ::error lines (a violated output or a refusal each), the violations' with their first violations on the same line (%0A)"
# a run that does not re-derive: a failing testcase "replay"
cp -r $rec/gelu_fwd "$tmp/tampered"
$py -c 'import json, sys
p = sys.argv[1] + "/results.json"
r = json.load(open(p))
r["cases"][0]["outputs"]["y"]["max_abs_err"] = 1.0
json.dump(r, open(p, "w"), indent=1, sort_keys=True)' "$tmp/tampered"
"$tp" replay --quiet --expect-from build/gen --junit "$tmp/tampered.xml" "$tmp/tampered" >/dev/null
[ $? = 1 ]; ok $? "replay of an edited results.json exits 1"
$py - "$tmp/tampered.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
t = [t for t in r.iter("testcase") if t.get("name") == "replay"]
assert len(t) == 1 and r.get("failures") == "1", r.attrib
f = t[0].find("failure")
assert f.get("type") == "disagreement" and "max_abs_err" in f.get("message"), f.attrib
PY
ok $? "its JUnit file has one failure, testcase \"replay\", naming the field that differs"

# 4. tolproof check on NumPy-written files: a correct and a wrong output,
#    and bad input.
if $py -c 'import numpy' 2>/dev/null && $py gen/npy_fixtures.py "$tmp/fx" >/dev/null; then
    fx=$tmp/fx/gemm_fwd
    "$tp" check --contract gemm_fwd --input A=$fx/A.npy --input B=$fx/B.npy --output C=$fx/C.npy \
        --junit "$tmp/check_ok.xml" --format github >"$tmp/check_ok.out"
    c=$(junit "$tmp/check_ok.xml") && set -- $c && [ "$1 $2 $3 $4" = "1 0 0 0" ] && ! grep -q '^::' "$tmp/check_ok.out"
    ok $? "check of a correct output: one passing testcase check/C, no annotation ($c)"
    "$tp" check --contract gemm_fwd --input A=$fx/A.npy --input B=$fx/B.npy --output C=$fx/C_wrong.npy \
        --json "$tmp/check_bad.json" --junit "$tmp/check_bad.xml" --format github >"$tmp/check_bad.out"
    [ $? = 1 ]; ok $? "check of a wrong output exits 1"
    $py - "$tmp/check_bad.xml" "$tmp/check_bad.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
o = json.load(open(sys.argv[2]))["outputs"]["C"]
(t,) = list(r.iter("testcase"))
f = t.find("failure")
assert t.get("name") == "check/C" and t.get("file", "").endswith("C_wrong.npy"), t.attrib
assert f.get("message").startswith("violated: %d of %d elements" % (o["violations"], o["elements"])), f.attrib
PY
    ok $? "its testcase check/C fails with results.json's counts, pointing at the output file"
    grep -q '^::error file=.*C_wrong.npy,title=gemm_fwd/check/C::violated: ' "$tmp/check_bad.out"
    ok $? "and one ::error annotation on that file"
    "$tp" check --contract gemm_fwd --input A=$fx/A.npy --output C=$fx/C.npy --junit "$tmp/check_in.xml" \
        --format github >"$tmp/check_in.out" 2>/dev/null
    [ $? = 2 ] && c=$(junit "$tmp/check_in.xml") && set -- $c && [ "$1 $2 $3 $4" = "1 0 1 0" ] &&
        grep -q '^::error title=gemm_fwd/check::refused: contract gemm_fwd needs every input: missing --input B=FILE.npy' \
            "$tmp/check_in.out"
    ok $? "bad input (a missing input): exit 2, an <error> testcase and an ::error with the message"
else
    for k in 1 2 3 4 5; do echo "ok $((n += 1)) # SKIP python3-numpy not installed"; done
fi

# 5. Hostile names and reasons: markup, quotes, control characters,
#    U+FFFE, newlines and %, ::, commas that would end or start a
#    workflow command.
$py - "$tmp/hostile.json" <<'PY'
import json, sys
evil = 'a<b>&"c\'\x01\x1b[1m\ufffe\n::error::x%,:'
res = {"contract": "k" + evil, "cases": [
    {"case": "c" + evil, "verdict": "fail", "outputs": {"o" + evil: {
        "verdict": "fail", "violations": 1, "elements": 2, "max_err_over_bound": "inf", "max_abs_err": 1.5,
        "max_ulp_err": 3, "first_violations": [{"index": [1], "got": 2.0, "exact": 0.5, "allowed": [0.25, 0.75],
                                                "err_over_bound": "inf"}]}}},
    {"case": "r" + evil, "verdict": "refused", "by": "plan", "reason": "why" + evil},
    {"case": "e" + evil, "verdict": "error", "by": "fault", "reason": "\r\n::warning::injected"}]}
json.dump(res, open(sys.argv[1], "w"))
PY
"$tool" "$tmp/hostile.json" --junit "$tmp/hostile.xml" >"$tmp/hostile.out"
ok $? "tool_ci_formats writes the CI formats of results with hostile names"
c=$(junit "$tmp/hostile.xml") && set -- $c &&
    [ "$1 $2 $3 $4" = "3 1 2 0" ]
ok $? "the JUnit file parses: 3 testcases, 1 failure, 2 errors ($c)"
xmlok "$tmp/hostile.xml"
ok $? "xmllint reads it"
$py - "$tmp/hostile.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
seen = 'a<b>&"c\'\\x01\\x1B[1m\\uFFFE\n::error::x%,:'
s = r.find("testsuite")
assert s.get("name") == "k" + seen, repr(s.get("name"))
names = [t.get("name") for t in s.iter("testcase")]
assert names == ["c" + seen + "/o" + seen, "r" + seen, "e" + seen], names
assert all(t.get("classname") == "k" + seen for t in s.iter("testcase"))
e = [t.find("error") for t in s.iter("testcase") if t.find("error") is not None]
assert e[1].get("message") == "error by fault: \r\n::warning::injected; expected pass", repr(e[1].get("message"))
PY
ok $? "every name and reason reads back as given (newlines kept, control characters as visible \\xNN, U+FFFE as \\uFFFE)"
[ "$(wc -l <"$tmp/hostile.out")" = 3 ] && [ "$(grep -c '^::error ' "$tmp/hostile.out")" = 3 ] &&
    grep -qF '%0A%3A%3Aerror%3A%3Ax%25%2C%3A' "$tmp/hostile.out" && grep -qF 'why' "$tmp/hostile.out" &&
    grep -qF '%0A::error::x%25,:; expected pass' "$tmp/hostile.out" &&
    grep -q '%0D%0A::warning::injected; expected pass$' "$tmp/hostile.out" && ! grep -q $'\x1b' "$tmp/hostile.out"
ok $? "three annotation lines, one per failing testcase: no name or reason starts another command"

# 6. ninja run's step passes --junit to the harness and names the file.
printf '#!/bin/sh\nexec "%s" "%s" "%s" "$@"\n' "$PWD/$pb" build/gen/gemm_fwd.plan.json $rec/gemm_fwd >"$tmp/harness_gemm_fwd"
chmod +x "$tmp/harness_gemm_fwd"
$py gen/tpgen.py run-harness "$tmp/harness_gemm_fwd" --contract gemm_fwd --backend cuda --status "$tmp/step.json" \
    --out "$tmp/step" --junit "$tmp/step.xml" >"$tmp/step.log" 2>&1 &&
    c=$(junit "$tmp/step.xml" "$tmp/step") && grep -q "\"junit\": \"$tmp/step.xml\"" "$tmp/step.json"
ok $? "gen/tpgen.py run-harness --junit FILE: the harness writes it, the step's JSON names it"
grep -q 'junit = build/runs/cuda/gemm_fwd.junit.xml' build/harnesses.ninja &&
    grep -q -- '--junit $junit' build.ninja
ok $? "ninja run asks each harness for build/runs/cuda/NAME.junit.xml"

# 7. Option errors are one line.
"$tp" replay --format xml $rec/gemm_fwd >/dev/null 2>"$tmp/opt.err"
[ $? = 2 ] && grep -q 'tolproof replay: --format xml: expected tap or github' "$tmp/opt.err"
ok $? "replay --format xml: exit 2, one line"
"$tp" check --contract gemm_fwd --format xml 2>"$tmp/opt.err" >/dev/null
[ $? = 2 ] && grep -q 'tolproof check: --format xml: expected text or github' "$tmp/opt.err"
ok $? "check --format xml: exit 2, one line"
"$pb" build/gen/gemm_fwd.plan.json $rec/gemm_fwd --format xml >/dev/null 2>"$tmp/opt.err"
[ $? = 2 ] && grep -q -- '--format xml: expected text or github' "$tmp/opt.err"
ok $? "harness --format xml: exit 2, one line"
"$pb" build/gen/gemm_fwd.plan.json $rec/gemm_fwd --case normal_64 --out "$tmp/nojunit" --junit "$tmp/no/such/dir/j.xml" \
    >/dev/null 2>"$tmp/opt.err"
[ $? = 2 ] && grep -q -- "--junit $tmp/no/such/dir/j.xml: cannot be written" "$tmp/opt.err"
ok $? "a --junit file that cannot be written: exit 2, named"
tap_end
