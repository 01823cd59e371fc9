#!/usr/bin/env bash
# The tolproof command's layout (cli/): no source includes a .c file; the
# runtime (core/, oracles/, harness/) includes nothing of cli/ and no
# harness links build/libtolproof_cli.a; the modules of cli/ (NAME.c and
# NAME.h together) include each other without a cycle; every header of
# cli/ comes with its .c; main.c's table names every cmd_*.c.
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh

! grep -rn --include='*.c' --include='*.h' '#include *"[^"]*\.c"' core oracles harness cli tests >&2
ok $? "no source file includes a .c file"
! grep -rn --include='*.c' --include='*.h' '#include *"cli/' core oracles harness >&2
ok $? "core/, oracles/ and harness/ include nothing of cli/"
! grep -n 'libtolproof_cli' build/harnesses.ninja build/variants.ninja 2>/dev/null >&2 &&
    ! grep -rn 'libtolproof_cli' gen harness >&2
ok $? "no harness links build/libtolproof_cli.a"

# module A -> module B when A.c or A.h includes cli/B.h; tsort reports a cycle
for f in cli/*.c cli/*.h; do
    a=$(basename "${f%.*}")
    echo "$a $a"
    sed -n 's|^#include "cli/\(.*\)\.h".*|\1|p' "$f" | while read -r b; do [ "$a" = "$b" ] || echo "$a $b"; done
done >"$tmp/edges"
tsort "$tmp/edges" >/dev/null 2>"$tmp/tsort.err"
[ ! -s "$tmp/tsort.err" ] || { sed 's/^/# /' "$tmp/tsort.err"; false; }
ok $? "the modules of cli/ include each other without a cycle ($(cut -d" " -f1 "$tmp/edges" | sort -u | wc -l) modules)"

missing=0
for h in cli/*.h; do
    [ -f "${h%.h}.c" ] || { echo "# $h has no .c"; missing=1; }
done
[ $missing = 0 ]; ok $? "every header of cli/ declares what its .c offers (a .c beside each)"

missing=0
for c in cli/cmd_*.c; do
    cmd=$(basename "${c%.c}") cmd=${cmd#cmd_}
    grep -q "{\"$cmd\"," cli/main.c || { echo "# $c is not in main.c's table"; missing=1; }
done
[ $missing = 0 ]; ok $? "main.c's table names every cli/cmd_NAME.c"

# every subcommand has a --help of its own (stdout, exit 0) that starts with its usage
tp=build/tolproof bad=0
for c in cli/cmd_*.c; do
    cmd=$(basename "${c%.c}") cmd=${cmd#cmd_}
    for form in "$cmd --help" "help $cmd"; do
        # shellcheck disable=SC2086
        out=$("$tp" $form 2>/dev/null)
        rc=$?
        [ $rc = 0 ] && echo "$out" | head -2 | grep -q "tolproof $cmd" || { echo "# tolproof $form: exit $rc"; bad=1; }
    done
done
"$tp" --help | grep -q '^  verdicts ' && "$tp" >/dev/null 2>&1
[ $? = 2 ] && [ $bad = 0 ]; ok $? "tolproof --help lists the commands; each command's --help starts with its usage"
"$tp" nonsense >/dev/null 2>&1
[ $? = 2 ]; ok $? "an unknown command exits 2"

tap_end
