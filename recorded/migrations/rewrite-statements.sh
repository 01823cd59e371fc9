#!/usr/bin/env bash
# The shared step of a migration that only rewrites statement texts
# (recorded/MIGRATIONS.md): replaces each old text of TEXTS (a JSON object,
# old text -> new text) by its new text in every recorded results.json.
# A new text may be given as {"text": NEW, "ids": [ID, ...]}: then only the
# statements of those ids change (two ops may say the same text under
# their own ids, and a migration may change one op's).
#
# Usage, from a migration script (after `./configure && ninja lib`):
#     recorded/migrations/rewrite-statements.sh TEXTS.json [RUN_DIR...]
# (RUN_DIRs: only those recorded runs, e.g. runs recorded after the
# migration was first applied; default every one)
# It rewrites with `tolproof replay --rewrite-statements`, which changes a
# case only when everything but its Evidence and Non-claims re-derives
# identically; then checks that each rewritten file is its old bytes with
# exactly those old texts replaced by the new ones (nothing else), that
# every other file under recorded/ is unchanged byte for byte, and that
# every recorded run replays. Exit 0 when all of that holds, 1 otherwise,
# 2 on bad usage. Re-runnable: a second run changes nothing.
# (Migrations 0006 to 0008 each carry their own copy of these steps; they
# stay as they were committed.)
set -euo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: $0 TEXTS.json [RUN_DIR...] (a JSON object: old statement text -> new text)" >&2; exit 2; }
texts=$(realpath "$1")
shift
only=()
for d in "$@"; do only+=("$(realpath --relative-to="$(dirname "$0")/../.." "$d")"); done
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib first" >&2; exit 2; }
runs=()
if [ ${#only[@]} -gt 0 ]; then
    for d in "${only[@]}"; do
        [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] || { echo "$0: $d: not a recorded run" >&2; exit 2; }
        runs+=("${d%/}")
    done
else
    for d in recorded/*/*/ recorded/variants/*/*/; do
        [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] && runs+=("${d%/}")
    done
fi
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run under recorded/" >&2; exit 2; }
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
for r in "${runs[@]}"; do
    mkdir -p "$before/$r"
    cp "$r/results.json" "$before/$r/results.json"
done
find recorded -type f ! -name results.json -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"

if ! "$tp" replay --quiet --rewrite-statements --expect-from build/gen "${runs[@]}" >"$before/rewrite.log"; then
    grep -E '^(not ok|# .*not rewritten)' "$before/rewrite.log" >&2 || true
    echo "$0: FAILED: the runs above differ in more than their statements and were left as they are" >&2
    exit 1
fi
sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than results.json changed" >&2; exit 1; }

/usr/bin/python3 - "$texts" "$before" "${runs[@]}" <<'PY'
import json, re, sys

texts_file, before, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(texts_file, encoding="utf-8") as f:
    TEXTS = json.load(f)
def scoped(v):
    return (isinstance(v, dict) and set(v) == {"text", "ids"} and isinstance(v["text"], str)
            and isinstance(v["ids"], list) and v["ids"] and all(isinstance(i, str) for i in v["ids"]))
if not isinstance(TEXTS, dict) or not TEXTS or not all(isinstance(v, str) or scoped(v) for v in TEXTS.values()):
    sys.exit(f"{texts_file}: expected a non-empty JSON object of old text -> new text "
             "(or -> {\"text\": new text, \"ids\": [statement ids]})")
counts = {(v if isinstance(v, str) else v["text"]): 0 for v in TEXTS.values()}
files = changed = 0
for run in runs:
    old = open(f"{before}/{run}/results.json", "rb").read().decode()
    new = open(f"{run}/results.json", "rb").read().decode()
    files += 1
    want = old
    for o, n in TEXTS.items():
        if isinstance(n, str):
            want = want.replace(json.dumps(o), json.dumps(n))
            continue
        for i in n["ids"]:  # the text that follows this id's "id" key
            pat = re.escape('"id": ' + json.dumps(i) + ",") + r'(\s*"text": )' + re.escape(json.dumps(o))
            want = re.sub(pat, lambda m: '"id": ' + json.dumps(i) + "," + m.group(1) + json.dumps(n["text"]), want)
    if new != want:
        sys.exit(f"FAILED: {run}/results.json is not its old bytes with the statement texts replaced")
    if new != old:
        changed += 1
    for n in counts:
        counts[n] += new.count(json.dumps(n))
print(f"{files} results.json, {changed} rewritten: only the statement texts replaced, every other byte kept")
for n, c in counts.items():
    print(f"  {c:4d} x {n[:90]}...")
PY

"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay" >&2; exit 1; }
echo "every other file under recorded/ unchanged byte for byte; ${#runs[@]} runs replay"
