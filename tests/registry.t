#!/usr/bin/env bash
# The registry (build/gen/registry.json, written by build/tp_registry from
# oracles/registry_tool.c) is the one list of ops, dtypes, limits,
# expression functions and fill forms: it has every part gen/ reads, it is
# written the same twice, every contract names one of its ops, every op has
# a CPU emulation (tests/tool_emulate.c), and `tp_registry check` answers
# gen/'s batch requests in order and refuses a request it does not know.
set -u
cd "$(dirname "$0")/.."
reg=build/gen/registry.json tool=build/tp_registry emu=build/tests/tool_emulate py=/usr/bin/python3
. tests/tap.sh

$py - "$reg" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tolproof_registry"] == 1
for o in r["ops"]:
    assert o["name"] and o["summary"] and o["dtypes"], o
    for k in o["model"]:
        assert k["key"] and (k.get("values") or k.get("what")), k
names = [d["name"] for d in r["dtypes"]]
assert all(set(d) == {"name", "size", "c_type", "npy_descr", "index"} for d in r["dtypes"])
assert all(set(o["dtypes"]) <= set(names) for o in r["ops"])
assert set(r["limits"]) == {"max_dims", "max_tensors", "max_rank"}
assert all(f["arity"] == len(f["args"]) and f["c_name"] for f in r["expression_functions"])
assert all(f["arity"] == len(f["args"]) and set(f["dtypes"]) <= set(names) for f in r["fill_forms"])
EOF
ok $? "$reg has ops (name, summary, dtypes, model keys), dtypes, limits, expression functions and fill forms"

$tool json "$tmp/registry.json" && cmp -s "$tmp/registry.json" "$reg"
ok $? "tp_registry json writes the same registry again"

bad=$($py -c 'import json, sys, tomllib
ops = {o["name"] for o in json.load(open(sys.argv[1]))["ops"]}
print(" ".join(c for c in sys.argv[2:] if tomllib.load(open(c, "rb"))["op"] not in ops))' "$reg" contracts/*.toml)
[ -z "$bad" ]; ok $? "every contract names an op of the registry (not: ${bad:-none})"

missing=$(comm -23 <($py -c 'import json, sys
print("\n".join(o["name"] for o in json.load(open(sys.argv[1]))["ops"]))' "$reg" | sort) <("$emu" --ops | sort))
[ -z "$missing" ]; ok $? "tests/tool_emulate.c emulates every op of the registry (missing: ${missing:-none})"

echo '{"dims": ["M", "N"], "items": [{"kind": "value", "text": "ceil_div(N, 16)"},
  {"kind": "condition", "text": "M <= 8 and N > 0"}, {"kind": "value", "text": "Q"},
  {"kind": "fill", "text": "zipf(10)", "dtype": "i32", "rank": 1}, {"kind": "dim_name", "text": "int"}]}' |
    $tool check >"$tmp/answer.json"
$py - "$tmp/answer.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [a["ok"] for a in r] == [True, True, False, True, False], r
assert r[0]["c"] == "tp_ceil_div(N, 16)" and r[1]["c"] == "(M <= 8) && (N > 0)", r
assert r[2]["what"] == "unknown dim 'Q' in 'Q'" and r[2]["expected"].startswith("an integer expression over the dims (M, N)")
EOF
ok $? "tp_registry check answers each item in order: the C rendering, or what is wrong and what was expected"

echo '{"dims": [], "items": [{"kind": "nope", "text": "x"}]}' | $tool check >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "not one the protocol knows" "$tmp/err"
ok $? "tp_registry check refuses an unknown item kind with one line and exit 2 ($(cat "$tmp/err"))"

echo 'not json' | $tool check >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]
ok $? "tp_registry check refuses a request that is not JSON with one line and exit 2"

tap_end
