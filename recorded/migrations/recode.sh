#!/usr/bin/env bash
# Re-encodes every recorded .tpr output (recorded/MIGRATIONS.md, 0004) after
# a change that moves an op's exact reference, so that the binary16 (or
# binary32) rounding the outputs are encoded against changes somewhere.
# Such a .tpr no longer decodes with the new code: the replay stops with
# "decodes to a .npy whose SHA-256 is ..., not the recorded ...", naming the
# file. Only the code that wrote it can decode it, so this builds the
# tolproof of OLD_REV (the last revision whose references the recorded
# files were packed against: the commit before the change) in a temporary
# worktree, unpacks every recorded run with it (each .npy checked against
# its recorded SHA-256), and packs them again with this tree's tolproof,
# which checks each new .tpr decodes to the same bytes. The outputs, and so
# every results.json, stay byte for byte as they were; the script checks
# that with the SHA-256 of every .npy before and after, and replays.
#
# Usage, from anywhere in the repository, after `./configure && ninja lib
# plans` on the new tree:
#     recorded/migrations/recode.sh OLD_REV
#     git add recorded && git commit   # on its own: "recode .tpr after ..."
# Exit 0 when every output was re-encoded and every run replays; 1 otherwise
# (nothing is committed for you; `git checkout recorded` undoes it).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: recorded/migrations/recode.sh OLD_REV" >&2; exit 2; }
old=$(git rev-parse --verify "$1^{commit}") || { echo "$0: $1 is not a revision" >&2; exit 2; }
tp=build/tolproof
[ -x "$tp" ] || { echo "$0: $tp is missing: run ./configure && ninja lib first" >&2; exit 2; }
shopt -s nullglob
runs=()
for d in recorded/*/*/ recorded/variants/*/*/; do
    [ -f "$d/results.json" ] && [ -f "$d/plan.json" ] && runs+=("${d%/}")
done
[ ${#runs[@]} -gt 0 ] || { echo "$0: no recorded run under recorded/" >&2; exit 2; }
work=$(mktemp -d)
wt="$work/old"
git worktree add --detach "$wt" "$old" >/dev/null
trap 'git worktree remove --force "$wt"; rm -rf "$work"' EXIT
echo "building the tolproof of $old in $wt"
(cd "$wt" && ./configure >/dev/null && ninja build/tolproof >/dev/null)
"$wt/build/tolproof" unpack "${runs[@]}" >"$work/unpack.log" ||
    { grep '^not ok' "$work/unpack.log" >&2; echo "$0: FAILED: the old tolproof cannot decode the runs above" >&2; exit 1; }
find recorded -path '*/outputs/*' -name '*.npy' -print0 | sort -z | xargs -0 -r sha256sum >"$work/npy.sha256"
"$tp" pack "${runs[@]}" >"$work/pack.log" ||
    { grep '^not ok' "$work/pack.log" >&2; echo "$0: FAILED: packing with the new tolproof" >&2; exit 1; }
# what the new .tpr files decode to is what the old ones did
mkdir -p "$work/check"
cp -r recorded "$work/check/"
(cd "$work/check" && "$OLDPWD/$tp" unpack "${runs[@]}" >/dev/null && sha256sum --quiet --strict -c "$work/npy.sha256") ||
    { echo "$0: FAILED: the re-encoded outputs do not decode to the same .npy bytes" >&2; exit 1; }
"$tp" replay --quiet --expect-from build/gen "${runs[@]}" >"$work/replay.log" ||
    { grep '^not ok' "$work/replay.log" >&2; echo "$0: FAILED: the re-encoded runs do not replay" >&2; exit 1; }
echo "re-encoded $(wc -l <"$work/npy.sha256") outputs of ${#runs[@]} runs against the new references; every run replays"
