#!/usr/bin/env bash
# Migration 0005 (recorded/MIGRATIONS.md): the recorded refusals of size
# limits that issue 10 lifted keep the expectation they were recorded
# under. Adds "expect": "refused" to one case of each recorded plan that
# has it, the case the plan itself refused before any launch:
#   refused_cols_16384  (cols <= 8192)  layernorm_fwd and its variants
#                                       layernorm_fwd_smem_tree, layernorm_fwd_welford
#   refused_cols_10000  (cols <= 8192)  layernorm_bwd_input and its variant
#                                       layernorm_bwd_input_no_fma
#   refused_rows_16384  (rows <= 8192)  layernorm_bwd_params and its variants
#                                       layernorm_bwd_params_missing_sync,
#                                       layernorm_bwd_params_reversed_rows,
#                                       layernorm_bwd_params_skip_last_row
# (9 plans under recorded/nvidia-h200/ and recorded/variants/nvidia-h200/).
# These plans predate expectations, so replay took each case's expectation
# from the current contract's plan by name; the contracts now refuse above
# the new limits (cols <= 65536, rows <= 1048576) under new case names, so
# the old names were no longer found and the refusals read as unexpected.
# A case's own "expect" in plan.json wins (tolproof replay --help).
#
# Usage, from anywhere in the repository, after `./configure && ninja`:
#     recorded/migrations/0005-expect-refused-limits.sh
# It checks, before writing, that each case exists, has no "expect" yet (or
# already "refused": a second run changes nothing) and is recorded in
# results.json as refused by the plan; it writes each plan.json the way
# the generator does (indent 1, sorted keys, no final newline) and checks
# that the rewrite is the old bytes with exactly one line inserted; that
# every other file under recorded/ is unchanged byte for byte; and that the
# nine runs replay with every case as expected (--expect-from build/gen).
# Exit 0 when all of that holds, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja first" >&2; exit 2; }
runs=() cases=()
for r in recorded/*/*/ recorded/variants/*/*/; do
    r=${r%/}
    for k in refused_cols_16384 refused_cols_10000 refused_rows_16384; do
        if [ -f "$r/plan.json" ] && grep -q "\"name\": \"$k\"" "$r/plan.json"; then
            runs+=("$r") cases+=("$k")
        fi
    done
done
[ ${#runs[@]} -eq 9 ] || { echo "$0: FAILED: expected 9 recorded plans with those cases, found ${#runs[@]}" >&2; exit 1; }
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
find recorded -type f ! -path '*/plan.json' -print0 | sort -z | xargs -0 sha256sum >"$before/other-files.sha256"
find recorded -type f -path '*/plan.json' -print0 | sort -z | xargs -0 sha256sum >"$before/plans.sha256"

for i in "${!runs[@]}"; do
    /usr/bin/python3 - "${runs[$i]}" "${cases[$i]}" <<'PY'
import json, sys
run, name = sys.argv[1], sys.argv[2]
path = f"{run}/plan.json"
raw = open(path).read()
plan = json.loads(raw)
if json.dumps(plan, indent=1, sort_keys=True) != raw:
    sys.exit(f"FAILED: {path} is not in the generator's layout; not rewritten")
res = json.load(open(f"{run}/results.json"))
rec = [c for c in res["cases"] if c.get("case") == name]
if len(rec) != 1 or rec[0].get("verdict") != "refused" or rec[0].get("by") != "plan":
    sys.exit(f"FAILED: {run}/results.json does not record case {name} as refused by the plan")
case = [c for c in plan["cases"] if c.get("name") == name]
if len(case) != 1:
    sys.exit(f"FAILED: {path} has no single case {name}")
if case[0].get("expect") == "refused":
    print(f"{path}: {name} already expects refused")
    sys.exit(0)
if "expect" in case[0]:
    sys.exit(f"FAILED: {path}: {name} already expects {case[0]['expect']}")
case[0]["expect"] = "refused"
new = json.dumps(plan, indent=1, sort_keys=True)
old_lines, new_lines = raw.split("\n"), new.split("\n")
added = [l for l in new_lines if l not in old_lines]
if len(new_lines) != len(old_lines) + 1 or added != ['   "expect": "refused",']:
    sys.exit(f"FAILED: {path}: the rewrite is not the old bytes with one line inserted")
k = new_lines.index(added[0])
if new_lines[:k] + new_lines[k + 1:] != old_lines:
    sys.exit(f"FAILED: {path}: the rewrite changes more than one inserted line")
open(path, "w").write(new)
print(f"{path}: {name} now expects refused")
PY
done

sha256sum --quiet --strict -c "$before/other-files.sha256" ||
    { echo "$0: FAILED: a file other than plan.json changed" >&2; exit 1; }
changed=$(sha256sum --quiet -c "$before/plans.sha256" 2>/dev/null | sed 's/: FAILED$//' | sort | tr '\n' ' ' || true)
for p in $changed; do
    case " ${runs[*]/%//plan.json} " in *" $p "*) ;; *) echo "$0: FAILED: $p changed" >&2; exit 1 ;; esac
done
"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$before/replay.log" ||
    { grep '^not ok' "$before/replay.log" >&2; echo "$0: FAILED: the migrated runs do not replay as expected" >&2; exit 1; }
echo "$0: ${#runs[@]} plans checked; changed: ${changed:-none}; the ${#runs[@]} runs replay, every case as expected"
