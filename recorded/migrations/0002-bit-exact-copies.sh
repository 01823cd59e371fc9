#!/usr/bin/env bash
# Migration 0002 (recorded/MIGRATIONS.md): embedding_fwd's outputs are
# compared bit pattern by bit pattern, not value by value, and its Evidence
# and Non-claims say so. Re-generates, in the recorded runs of op
# embedding_fwd only, each case's statement lists and the violation
# statistics that the bit comparison re-derives differently.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0002-bit-exact-copies.sh
# It rewrites the results.json of every run under recorded/*/*/ and
# recorded/variants/*/*/ whose plan's op is embedding_fwd with
# `tolproof replay --rewrite-only evidence,non_claims,violations,...`,
# which changes a case only when every difference from its recomputation
# lies under those keys. Then it checks:
#   - every other file under recorded/ unchanged byte for byte, and the
#     results.json of runs of other ops too;
#   - in every case: the statement lists changed exactly as described in
#     MIGRATIONS.md (embedding_fwd.bound.exact_copy replaced by
#     embedding_fwd.bound.bit_pattern, outputs.compared_bits said before
#     claim.audit, the Non-claim embedding_fwd.nonclaim.bit_patterns gone,
#     every other statement as it was, in its order);
#   - every other field as it was, except per output the counts a stricter
#     comparison may raise (violations: never fewer; the verdict, the
#     elements, the output's SHA-256, the claim audit, the worst and first
#     violations unchanged);
#   - the file's bytes outside the statement lists differ only in lines
#     holding one of those counts;
#   - the migrated runs replay.
# It prints what changed. Exit 0 when all of that holds (whether or not
# anything needed rewriting), 1 otherwise. Re-runnable: a second run
# changes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib first" >&2; exit 2; }
shopt -s nullglob
runs=() all=()
for d in recorded/*/*/ recorded/variants/*/*/; do
    [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] || continue
    all+=("${d%/}")
    /usr/bin/python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["op"] != "embedding_fwd")' \
        "$d/plan.json" && runs+=("${d%/}")
done
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run of op embedding_fwd under recorded/" >&2; exit 2; }
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT

for r in "${all[@]}"; do
    mkdir -p "$before/$r"
    cp "$r/results.json" "$before/$r/results.json"
done
find recorded -type f ! -name results.json -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"

counts=violations,max_abs_err,max_ulp_err,max_err_over_bound,nonfinite_outputs
if ! "$tp" replay --quiet --rewrite-only "evidence,non_claims,$counts" "${runs[@]}" >"$before/rewrite.log"; then
    grep -E '^(not ok|# .*not rewritten)' "$before/rewrite.log" >&2
    echo "$0: FAILED: the runs above disagree in more than the fields to re-generate and were left as they are" >&2
    exit 1
fi
sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than results.json changed" >&2; exit 1; }

/usr/bin/python3 - "$before" "$counts" "${runs[@]}" -- "${all[@]}" <<'PY'
import json, re, sys

before, counts = sys.argv[1], sys.argv[2].split(",")
sep = sys.argv.index("--")
runs, every = sys.argv[3:sep], sys.argv[sep + 1:]
LISTS = ("evidence", "non_claims")

def fail(msg):
    sys.exit(f"FAILED: {msg}")

def ids(lst):
    return [s["id"] for s in lst]

def expected_evidence(old):  # idempotent: an already migrated list maps to itself
    if "outputs.compared_bits" in ids(old):
        return old
    new = []
    for s in old:
        if s["id"] == "embedding_fwd.bound.exact_copy":
            s = {"id": "embedding_fwd.bound.bit_pattern", "text": "admitted set of each element: that single bit pattern"}
        if s["id"] == "claim.audit":
            new.append({"id": "outputs.compared_bits", "text": "every output element compared with its admitted bit "
                        "pattern, bit for bit: a NaN passes only with the same payload and sign, a zero only with the same sign"})
        new.append(s)
    return new

def cut(path):  # the file's lines with each case's two lists cut out
    text = open(path, "rb").read()
    return re.sub(rb'\n   "(evidence|non_claims)": \[.*?\n   \],?', b"\n   <statements>", text, flags=re.S).split(b"\n")

count_line = re.compile(rb'^ +"(' + "|".join(counts).encode() + rb')": [^\[\{]*$')
for run in every:
    if run in runs:
        continue
    if open(f"{before}/{run}/results.json", "rb").read() != open(f"{run}/results.json", "rb").read():
        fail(f"{run}/results.json (not an embedding_fwd run) changed")

cases = lists = 0
changed_counts = []
for run in runs:
    old, new = json.load(open(f"{before}/{run}/results.json")), json.load(open(f"{run}/results.json"))
    strip = lambda r: {**r, "cases": None}
    if strip(old) != strip(new) or len(old["cases"]) != len(new["cases"]):
        fail(f"{run}/results.json: a run-level field changed")
    for o, n in zip(old["cases"], new["cases"]):
        cases += 1
        name = o.get("case")
        if ("evidence" in o) != ("evidence" in n) or ("non_claims" in o) != ("non_claims" in n):
            fail(f"{run}: case {name}: statement lists added or dropped")
        if "evidence" in o:
            if n["evidence"] != expected_evidence(o["evidence"]):
                fail(f"{run}: case {name}: evidence is not the old list with exact_copy -> bit_pattern and "
                     f"outputs.compared_bits: {ids(n['evidence'])}")
            want_nc = [s for s in o["non_claims"] if s["id"] != "embedding_fwd.nonclaim.bit_patterns"]
            if n["non_claims"] != want_nc:
                fail(f"{run}: case {name}: non_claims is not the old list without bit_patterns: {ids(n['non_claims'])}")
            lists += (o["evidence"] != n["evidence"]) + (o["non_claims"] != n["non_claims"])
        rest = lambda c: {k: v for k, v in c.items() if k not in LISTS + ("outputs",)}
        if rest(o) != rest(n) or set(o.get("outputs", {})) != set(n.get("outputs", {})):
            fail(f"{run}: case {name}: a field other than the statement lists and the outputs changed")
        for out, oo in o.get("outputs", {}).items():
            no = n["outputs"][out]
            if {k: v for k, v in oo.items() if k not in counts} != {k: v for k, v in no.items() if k not in counts}:
                fail(f"{run}: case {name}: output {out}: a field other than {', '.join(counts)} changed")
            if no["violations"] < oo["violations"]:
                fail(f"{run}: case {name}: output {out}: fewer violations ({oo['violations']} -> {no['violations']})")
            for k in counts:
                if oo.get(k) != no.get(k):
                    changed_counts.append(f"{run}/{name}: {out}.{k} {oo.get(k)} -> {no.get(k)}")
    a, b = cut(f"{before}/{run}/results.json"), cut(f"{run}/results.json")
    if len(a) != len(b) or any(x != y and not (count_line.match(x) and count_line.match(y)) for x, y in zip(a, b)):
        fail(f"{run}/results.json: bytes outside the statement lists changed in more than the count lines")

print(f"{len(runs)} embedding_fwd results.json, {cases} cases: {lists} statement list(s) re-generated "
      f"(embedding_fwd.bound.exact_copy -> embedding_fwd.bound.bit_pattern, outputs.compared_bits added, "
      f"embedding_fwd.nonclaim.bit_patterns dropped); other results.json unchanged")
print(f"counts re-derived by the bit comparison: {len(changed_counts)}")
for c in changed_counts:
    print("  " + c)
PY

"$tp" replay --quiet "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; the ${#runs[@]} migrated runs replay"
