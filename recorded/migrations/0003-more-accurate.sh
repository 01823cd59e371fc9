#!/usr/bin/env bash
# Migration 0003 (recorded/MIGRATIONS.md): violations more accurate than the
# declared model admits are counted apart. Adds, where the checker now
# writes them, the fields "more_accurate" (an output's count; true on each
# such element of its worst and first_violations lists) and "admitted_by"
# (the op's alternative model values that admit them) to the recorded
# results. Only additions: nothing recorded changes.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib`
# and after migrations 0001 and 0002:
#     recorded/migrations/0003-more-accurate.sh
# It rewrites recorded/*/*/results.json and recorded/variants/*/*/results.json
# with `tolproof replay --rewrite-only more_accurate,admitted_by`, which
# changes a case only when every difference from its recomputation lies
# under those keys. Then it checks:
#   - every other file under recorded/ unchanged byte for byte;
#   - every difference in a results.json is a key "more_accurate" or
#     "admitted_by" that the record did not have: an output's count (a
#     positive integer, at most its violations), true on elements of its
#     worst and first_violations lists that are violations (one for each
#     such element when the output has fewer than 5 violations),
#     [{"key", "value", "elements"}] lists whose counts do not exceed the
#     output's; nothing removed, nothing else changed;
#   - the bytes of each file are its old bytes with lines inserted (and a
#     comma added to the line before an inserted last key), each inserted
#     block starting at one of those keys;
#   - every recorded run replays.
# It prints the cases that gained the fields. Exit 0 when all of that holds
# (whether or not anything needed rewriting), 1 otherwise. Re-runnable: a
# second run changes nothing.
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

for r in "${runs[@]}"; do
    mkdir -p "$before/$r"
    cp "$r/results.json" "$before/$r/results.json"
done
find recorded -type f ! -name results.json -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"

if ! "$tp" replay --quiet --rewrite-only more_accurate,admitted_by "${runs[@]}" >"$before/rewrite.log"; then
    grep -E '^(not ok|# .*not rewritten)' "$before/rewrite.log" >&2
    echo "$0: FAILED: the runs above disagree in more than the fields to add and were left as they are" >&2
    exit 1
fi
sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than results.json changed" >&2; exit 1; }

/usr/bin/python3 - "$before" "${runs[@]}" <<'PY'
import difflib, json, sys

before, runs = sys.argv[1], sys.argv[2:]
NEW = ("more_accurate", "admitted_by")

def fail(msg):
    sys.exit(f"FAILED: {msg}")

def without_new(x):
    if isinstance(x, dict):
        return {k: without_new(v) for k, v in x.items() if k not in NEW}
    if isinstance(x, list):
        return [without_new(v) for v in x]
    return x

def kept(o, n):  # the new keys already recorded (a second run) hold the same values
    if isinstance(o, dict) and isinstance(n, dict):
        return all(n.get(k) == v if k in NEW else kept(v, n.get(k)) for k, v in o.items())
    if isinstance(o, list) and isinstance(n, list):
        return len(o) == len(n) and all(kept(x, y) for x, y in zip(o, n))
    return True

def is_violation(e):
    lo, hi = (float(v) for v in e["allowed"])  # float() reads "inf", "-inf", "nan" too
    return not (lo <= float(e["got"]) <= hi)

files = cases = 0
gained = []
for run in runs:
    opath, npath = f"{before}/{run}/results.json", f"{run}/results.json"
    old, new = json.load(open(opath)), json.load(open(npath))
    files += 1
    if without_new(new) != without_new(old) or not kept(old, new):
        fail(f"{npath}: a field other than an added {' or '.join(NEW)} differs, or one recorded before changed")
    for o, n in zip(old["cases"], new["cases"]):
        cases += 1
        for name, no in n.get("outputs", {}).items():
            if "more_accurate" not in no:
                if "admitted_by" in no or any("more_accurate" in e for e in no["worst"] + no["first_violations"]):
                    fail(f"{run}: case {n['case']}: output {name}: flagged elements or admitted_by without a count")
                continue
            m = no["more_accurate"]
            if not (isinstance(m, int) and 0 < m <= no["violations"]):
                fail(f"{run}: case {n['case']}: output {name}: more_accurate {m!r} is not in 1..violations")
            flagged = [e for e in no["worst"] + no["first_violations"] if "more_accurate" in e]
            if any(e["more_accurate"] is not True or not is_violation(e) for e in flagged):
                fail(f"{run}: case {n['case']}: output {name}: an element flagged that is not a violation, or not true")
            if no["violations"] <= len(no["first_violations"]):
                if sum(e.get("more_accurate", False) for e in no["first_violations"]) != m:
                    fail(f"{run}: case {n['case']}: output {name}: {m} counted, not as many flagged")
            for a in no.get("admitted_by", []):
                if set(a) != {"key", "value", "elements"} or not 0 < a["elements"] <= m:
                    fail(f"{run}: case {n['case']}: output {name}: admitted_by entry {a}")
            alts = ", ".join(f"{a['key']}={a['value']} admits {a['elements']}" for a in no.get("admitted_by", []))
            gained.append(f"{run}/{n['case']}: {name}: {m} of {no['violations']} violations more accurate"
                          f"{'; ' + alts if alts else '; no alternative admits them'}")
    # bytes: the old lines, in order, with inserted blocks only
    a = [l.rstrip(",") for l in open(opath).read().split("\n")]
    b = [l.rstrip(",") for l in open(npath).read().split("\n")]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "insert" or not any(f'"{k}":' in b[j1] for k in NEW):
            fail(f"{npath}: lines {i1 + 1}-{i2} of the old file are not kept as they were ({tag})")

print(f"{files} results.json, {cases} cases: only {' and '.join(NEW)} added, every other byte kept; "
      f"{len(gained)} output(s) have them")
for g in gained:
    print("  " + g)
PY

"$tp" replay --quiet "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; ${#runs[@]} runs replay"
