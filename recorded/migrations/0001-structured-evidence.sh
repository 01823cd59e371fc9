#!/usr/bin/env bash
# Migration 0001 (recorded/MIGRATIONS.md): the Evidence and Non-claims of
# every recorded results.json become statements {"id", "text"}, re-generated
# by the current checker from the recorded plans and outputs.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`:
#     recorded/migrations/0001-structured-evidence.sh
# It rewrites recorded/*/*/results.json and recorded/variants/*/*/results.json
# with `tolproof replay --rewrite-statements`, which changes a run only
# when every field of every case other than "evidence" and "non_claims"
# re-derives as recorded. Then it proves that nothing else changed: every
# other file under recorded/ byte for byte (outputs, plans, timing,
# results.md, results.tap), every other field of every results.json value
# for value and its bytes outside the two lists, and a plain replay of
# every run passes. Exit 0 when all of that
# holds (whether or not anything needed rewriting), 1 otherwise.
#
# Re-runnable: it re-generates from outputs and plans, so running it again
# changes nothing, and running it after a deliberate change of statement
# texts or ids re-generates exactly those.
set -euo pipefail
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib first" >&2; exit 2; }
shopt -s nullglob
runs=()
for d in recorded/*/*/ recorded/variants/*/*/; do
    [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] && runs+=("${d%/}")
done
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run under recorded/" >&2; exit 2; }
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT

# what may not change: every other file, and results.json's other fields
for r in "${runs[@]}"; do
    mkdir -p "$before/$r"
    cp "$r/results.json" "$before/$r/results.json"
done
find recorded -type f ! -name results.json -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"

if ! "$tp" replay --quiet --rewrite-statements "${runs[@]}" >"$before/rewrite.log"; then
    grep -E '^(not ok|# .*not rewritten)' "$before/rewrite.log" >&2
    echo "$0: FAILED: the runs above disagree in more than their statements and were left as they are" >&2
    exit 1
fi
sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than results.json changed" >&2; exit 1; }

/usr/bin/python3 - "$before" "${runs[@]}" <<'PY'
import collections, json, re, sys

before, runs = sys.argv[1], sys.argv[2:]
KEYS = ("evidence", "non_claims")

def text(s):  # a statement before (a string) or after (an {id, text}) the migration
    return s if isinstance(s, str) else s["text"]

def without_statements(r):
    return {**r, "cases": [{k: v for k, v in c.items() if k not in KEYS} for c in r["cases"]]}

def outside_statements(path):  # the file's bytes with each case's two lists cut out
    return re.sub(rb'\n   "(evidence|non_claims)": \[.*?\n   \],?', b"\n   <statements>",
                  open(path, "rb").read(), flags=re.S)

files = cases = changed_files = changed_lists = 0
added, removed = collections.Counter(), collections.Counter()
ids = collections.Counter()
for run in runs:
    old = json.load(open(f"{before}/{run}/results.json"))
    new = json.load(open(f"{run}/results.json"))
    files += 1
    if without_statements(old) != without_statements(new):
        sys.exit(f"FAILED: {run}/results.json: a field other than evidence/non_claims changed")
    if outside_statements(f"{before}/{run}/results.json") != outside_statements(f"{run}/results.json"):
        sys.exit(f"FAILED: {run}/results.json: bytes outside the evidence/non_claims lists changed")
    changed_files += old != new
    for o, n in zip(old["cases"], new["cases"]):
        cases += 1
        for k in KEYS:
            if k not in n:
                if k in o:
                    sys.exit(f"FAILED: {run}: case {n['case']}: {k} dropped")
                continue
            if not all(isinstance(s, dict) and set(s) == {"id", "text"} for s in n[k]):
                sys.exit(f"FAILED: {run}: case {n['case']}: {k} is not a list of {{id, text}}")
            for s in n[k]:
                ids[s["id"]] += 1
            if o.get(k) == n[k]:
                continue
            changed_lists += 1
            ot, nt = [text(s) for s in o.get(k, [])], [s["text"] for s in n[k]]
            for s in n[k]:
                if s["text"] not in ot:
                    added[(k, s["id"])] += 1
            for t in ot:
                if t not in nt:
                    removed[(k, t)] += 1

print(f"{files} results.json, {cases} cases: every field other than evidence/non_claims unchanged, "
      f"byte for byte outside those lists; "
      f"{changed_files} file(s), {changed_lists} statement list(s) re-generated")
if added or removed:
    print("texts no longer said (count, list, text):")
    for (k, t), c in sorted(removed.items()):
        print(f"  {c:4d} {k}: {t}")
    print("texts said now that were not before (count, list, id):")
    for (k, i), c in sorted(added.items()):
        print(f"  {c:4d} {k}: {i}")
print(f"{len(ids)} distinct ids recorded: " + ", ".join(sorted(ids)))
PY

"$tp" replay --quiet "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; ${#runs[@]} runs replay"
